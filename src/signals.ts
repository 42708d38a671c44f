import { EventEmitter } from 'node:events';

/**
 * What wakes background work in this process, by name, with its payload:
 * - `events`: a commit recorded events to send (integration ids);
 * - `recorded`: a commit recorded events (counts by event type);
 * - `calendar`: a commit changed properties' calendars (property ids), heard from other processes too;
 * - `sync`: a sync was accepted;
 * - `clock`: the test clock moved.
 */
export interface SignalPayloads {
  events: number[];
  recorded: ReadonlyMap<string, number>;
  calendar: number[];
  sync: undefined;
  clock: undefined;
}

export type SignalName = keyof SignalPayloads;

/** The signals whose payload is a list of ids: the ones a commit gathers and other processes may hear. */
export type IdSignal = { [K in SignalName]: SignalPayloads[K] extends number[] ? K : never }[SignalName];

type Args<K extends SignalName> = SignalPayloads[K] extends undefined ? [] : [SignalPayloads[K]];

/** A typed event emitter over SignalPayloads; one per runtime (Deps.signals). */
export class Signals {
  private readonly emitter = new EventEmitter();

  constructor() {
    // one listener per delivery worker, sync runner, metrics and test: more than Node's default 10
    this.emitter.setMaxListeners(100);
  }

  emit<K extends SignalName>(name: K, ...payload: Args<K>): void {
    this.emitter.emit(name, ...payload);
  }

  on<K extends SignalName>(name: K, listener: (payload: SignalPayloads[K]) => void): void {
    this.emitter.on(name, listener);
  }

  off<K extends SignalName>(name: K, listener: (payload: SignalPayloads[K]) => void): void {
    this.emitter.off(name, listener);
  }
}
