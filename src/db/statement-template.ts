import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type Compilable,
  type CompiledQuery,
  type RawBuilder,
} from 'kysely';
import type { DB } from './schema.js';

/**
 * A statement built with Kysely once per shape, then sent again with new values: its SQL text in
 * pieces and, per parameter, the value's name or a constant of the statement. Building and
 * compiling nested Kysely queries is work redone on every call; what is left per call is one flat
 * node of the pieces and the values.
 *
 * `build` gets placeholders in place of the values and must not branch on them, nor compute with
 * them (a placeholder refuses to become a string or a number): everything that changes the
 * statement's text goes into the shape, a string that names one kept statement. Values are sent
 * as parameters as they are given: a null is NULL (`x = NULL` matches nothing), a list is one
 * parameter (an array), not a list of them.
 */
export function statementTemplate<P extends object, S extends string>(
  build: (values: P, shape: S, db: Kysely<DB>) => Buildable,
): <R>(shape: S, values: P) => RawBuilder<R> {
  const built = new Map<string, Template>();
  return <R>(shape: S, values: P) => {
    let template = built.get(shape);
    if (!template) {
      template = compileOnce((placeholders) => build(placeholders as P, shape, compiler));
      built.set(shape, template);
    }
    const params = template.params.map((p) => (p instanceof Placeholder ? (values as Record<string, unknown>)[p.name] : p.value));
    return sql<R>(template.pieces as unknown as TemplateStringsArray, ...params);
  };
}

/** PostgreSQL's compiler without a connection (both engines speak PostgreSQL); tests compile with it too. */
export const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

class Placeholder {
  constructor(readonly name: string) {}
  [Symbol.toPrimitive](): never {
    throw new Error(`statementTemplate: the value "${this.name}" was used while building the statement; put what changes its text in the shape`);
  }
}

type Buildable = Compilable<unknown> | RawBuilder<unknown>;

interface Template {
  pieces: readonly string[];
  params: ReadonlyArray<Placeholder | { value: unknown }>;
}

function compileOnce(build: (placeholders: Record<string, unknown>) => Buildable): Template {
  const placeholders = new Proxy(
    {},
    {
      get: (_, name) => (typeof name === 'string' ? new Placeholder(name) : undefined),
    },
  );
  // A query builder compiles by itself; a raw `sql` statement is given the compiler.
  const { sql: text, parameters } = (build(placeholders) as { compile(compiler: Kysely<DB>): CompiledQuery<unknown> }).compile(compiler);
  // PostgreSQL's compiler numbers its parameters $1, $2, … in order of appearance.
  const pieces: string[] = [];
  let at = 0;
  let n = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    if (Number(match[1]) !== ++n) throw new Error(`statementTemplate: parameter $${match[1]} out of order in ${text}`);
    pieces.push(text.slice(at, match.index));
    at = match.index + match[0].length;
  }
  pieces.push(text.slice(at));
  if (n !== parameters.length) throw new Error(`statementTemplate: ${parameters.length} parameters, ${n} places in ${text}`);
  return { pieces: Object.freeze(pieces), params: parameters.map((p) => (p instanceof Placeholder ? p : { value: p })) };
}
