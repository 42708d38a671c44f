import type { FastifyInstance } from 'fastify';

/** One registered route: method and full URL pattern (`/api/integrations/v1/properties/:property`). */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** Path parameter names in order (`property`, `id`, …). */
  params: string[];
}

// A line of Fastify's route tree: indentation of 4 characters per level, a branch, the path
// (relative to the parent line) and, for routes, their methods in parentheses.
const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/u;

/**
 * Every route the app has registered, read from the app itself (`printRoutes` with
 * `commonPrefix: false`, whose lines are paths relative to their parent line), so that tests that
 * must cover every endpoint pick up new routes without being told.
 */
export function listRoutes(app: FastifyInstance): RegisteredRoute[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: RegisteredRoute[] = [];
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`unexpected line in the route tree: ${JSON.stringify(line)}`);
    const depth = [...match[1]].length / 4;
    stack.length = depth;
    const url = (depth > 0 ? stack[depth - 1] : '') + match[2];
    stack.push(url);
    for (const method of (match[3] ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)) {
      routes.push({ method, url, params: [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]) });
    }
  }
  return routes;
}

/** The concrete path of a route for the given parameter values (already URL-encoded). */
export function fillPath(url: string, values: Record<string, string>): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for :${name} in ${url}`);
    return values[name];
  });
}
