import { type CfnTemplate, referencedId, resourcesOfType } from './deployed-template.js';

/**
 * CloudWatch Logs metric filters read from a synthesized template and run over log lines, as
 * CloudWatch Logs runs them over the events of a log group: which lines match each filter's
 * pattern, and the data points its metric gets (value and dimensions read from the line).
 *
 * The patterns read are the JSON filter patterns the construct writes (AWS's
 * FilterAndPatternSyntax: "Match terms in JSON log events"): `{ … }` around comparisons of a
 * selector (`$.field`, `$.a.b`, `$.list[0]`) with `=` or `!=` and a string (quoted or bare, `*`
 * matching any run of characters), or with `=`, `!=`, `<`, `<=`, `>`, `>=` and a number, joined by
 * `&&` and `||` with parentheses. Anything else throws, so that a pattern this reader does not
 * know is never taken for one that matches nothing. Strict where CloudWatch's documentation says
 * nothing: a string compares with string values only, a number with number values only, and a
 * missing field matches no comparison.
 * @module
 */

/** A metric filter of a template: where it runs, what it matches and what it publishes. */
export interface TemplateMetricFilter {
  /** Its logical id. */
  readonly id: string;
  /** The logical id of the log group it runs on, when the template creates that group. */
  readonly logGroupId: string | undefined;
  readonly pattern: string;
  readonly namespace: string;
  readonly name: string;
  /** A literal number, or `$.field`. */
  readonly value: string;
  /** Dimension names and the selectors their values are read from. */
  readonly dimensions: ReadonlyArray<readonly [string, string]>;
}

/** One data point a metric filter publishes for one matching line. */
export interface FilteredDataPoint {
  readonly namespace: string;
  readonly name: string;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
}

/**
 * The metric filters of a template, each transformation its own entry.
 *
 * @param template - the synthesized template
 * @param logGroupId - only the filters on this log group (its logical id)
 */
export function templateMetricFilters(
  template: CfnTemplate,
  logGroupId?: string,
): TemplateMetricFilter[] {
  return resourcesOfType(template, 'AWS::Logs::MetricFilter').flatMap(([id, filter]) => {
    const props = filter.Properties ?? {};
    const group = referencedId(props.LogGroupName);
    if (logGroupId !== undefined && group !== logGroupId) return [];
    return (props.MetricTransformations ?? []).map(
      (transformation: {
        MetricNamespace: string;
        MetricName: string;
        MetricValue: string;
        Dimensions?: Array<{ Key: string; Value: string }>;
      }) => ({
        id,
        logGroupId: group,
        pattern: String(props.FilterPattern),
        namespace: transformation.MetricNamespace,
        name: transformation.MetricName,
        value: transformation.MetricValue,
        dimensions: (transformation.Dimensions ?? []).map(
          ({ Key, Value }) => [Key, Value] as const,
        ),
      }),
    );
  });
}

/**
 * The data points the filters publish for `lines`, line by line, filter by filter.
 *
 * @param filters - metric filters of one log group
 * @param lines - the log events written to it, one per line
 * @throws when a matching line lacks a field a dimension or the value is read from
 */
export function filteredDataPoints(
  filters: readonly TemplateMetricFilter[],
  lines: Iterable<string>,
): FilteredDataPoint[] {
  const compiled = filters.map((filter) => ({
    filter,
    matches: compileFilterPattern(filter.pattern),
  }));
  const points: FilteredDataPoint[] = [];
  for (const line of lines) {
    const event = parseEvent(line);
    if (event === undefined) continue;
    for (const { filter, matches } of compiled) {
      if (!matches(event)) continue;
      const read = (selector: string): unknown => {
        const found = select(event, parseSelector(selector));
        if (found === undefined) {
          throw new Error(`${filter.id} matched a line without ${selector}: ${line.slice(0, 200)}`);
        }
        return found;
      };
      points.push({
        namespace: filter.namespace,
        name: filter.name,
        value: filter.value.startsWith('$') ? Number(read(filter.value)) : Number(filter.value),
        dimensions: Object.fromEntries(
          filter.dimensions.map(([key, selector]) => [key, String(read(selector))]),
        ),
      });
    }
  }
  return points;
}

/**
 * A JSON filter pattern as a predicate over a parsed log event.
 *
 * @param pattern - e.g. `{ ($.outcome = "queued") && ($.status = 200) }`
 * @throws for syntax outside the subset read here (see the module)
 */
export function compileFilterPattern(pattern: string): (event: unknown) => boolean {
  const trimmed = pattern.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) {
    throw new Error(`not a JSON filter pattern: ${pattern}`);
  }
  const tokens = tokenize(trimmed.slice(1, -1));
  let position = 0;
  const peek = () => tokens[position];
  const next = () => {
    const token = tokens[position++];
    if (token === undefined) throw new Error(`filter pattern ends too soon: ${pattern}`);
    return token;
  };
  const expression = (): Predicate => {
    const terms = [primary()];
    const joins = new Set<string>();
    while (peek()?.kind === 'join') {
      joins.add(next().text);
      terms.push(primary());
    }
    if (joins.size > 1) throw new Error(`&& and || mixed without parentheses: ${pattern}`);
    if (joins.has('||')) return (event) => terms.some((term) => term(event));
    return (event) => terms.every((term) => term(event));
  };
  const primary = (): Predicate => {
    const token = next();
    if (token.kind === 'open') {
      const inner = expression();
      if (next().kind !== 'close') throw new Error(`unbalanced parentheses: ${pattern}`);
      return inner;
    }
    if (token.kind !== 'selector')
      throw new Error(`expected a selector at ${token.text}: ${pattern}`);
    const operator = next();
    const operand = next();
    if (operator.kind !== 'operator') throw new Error(`expected an operator: ${pattern}`);
    return comparison(parseSelector(token.text), operator.text, operand, pattern);
  };
  const predicate = expression();
  if (position !== tokens.length) throw new Error(`unexpected ${peek()?.text}: ${pattern}`);
  return predicate;
}

type Predicate = (event: unknown) => boolean;

interface Token {
  readonly kind: 'open' | 'close' | 'join' | 'selector' | 'operator' | 'string' | 'number' | 'word';
  readonly text: string;
}

const TOKEN_RULES: ReadonlyArray<readonly [Token['kind'], RegExp]> = [
  ['open', /^\(/],
  ['close', /^\)/],
  ['join', /^(?:&&|\|\|)/],
  ['selector', /^\$(?:\.[A-Za-z_][\w-]*|\[\d+\])+/],
  ['operator', /^(?:!=|<=|>=|=|<|>)/],
  ['string', /^"(?:[^"\\]|\\.)*"/],
  ['number', /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.*])/],
  ['word', /^[^\s()&|"=<>!]+/],
];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let rest = text.trimStart();
  while (rest !== '') {
    const rule = TOKEN_RULES.find(([, pattern]) => pattern.test(rest));
    const match = rule?.[1].exec(rest)?.[0];
    if (rule === undefined || match === undefined) throw new Error(`cannot read ${rest}`);
    const [kind] = rule;
    if (kind === 'word' && /^(?:EXISTS|NOT|IS|NULL|TRUE|FALSE)$/.test(match)) {
      throw new Error(`${match} is not read by this evaluator`);
    }
    tokens.push({ kind, text: match });
    rest = rest.slice(match.length).trimStart();
  }
  return tokens;
}

function comparison(
  path: readonly (string | number)[],
  operator: string,
  operand: Token,
  pattern: string,
): Predicate {
  if (operand.kind === 'number') {
    const expected = Number(operand.text);
    const compare = NUMBER_OPERATORS[operator];
    if (compare === undefined) throw new Error(`unknown operator ${operator}: ${pattern}`);
    return (event) => {
      const value = select(event, path);
      return typeof value === 'number' && compare(value, expected);
    };
  }
  if (operand.kind !== 'string' && operand.kind !== 'word') {
    throw new Error(`expected a value after ${operator}: ${pattern}`);
  }
  if (operator !== '=' && operator !== '!=') {
    throw new Error(`${operator} compares numbers only: ${pattern}`);
  }
  const text = operand.kind === 'string' ? (JSON.parse(operand.text) as string) : operand.text;
  const wildcard = new RegExp(
    `^${text
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  return (event) => {
    const value = select(event, path);
    if (typeof value !== 'string') return false;
    return wildcard.test(value) === (operator === '=');
  };
}

const NUMBER_OPERATORS: Readonly<Record<string, (value: number, expected: number) => boolean>> = {
  '=': (value, expected) => value === expected,
  '!=': (value, expected) => value !== expected,
  '<': (value, expected) => value < expected,
  '<=': (value, expected) => value <= expected,
  '>': (value, expected) => value > expected,
  '>=': (value, expected) => value >= expected,
};

/** `$.a.b[0]` as `['a', 'b', 0]`. */
function parseSelector(selector: string): (string | number)[] {
  if (!/^\$(?:\.[A-Za-z_][\w-]*|\[\d+\])+$/.test(selector)) {
    throw new Error(`not a JSON selector: ${selector}`);
  }
  return [...selector.slice(1).matchAll(/\.([A-Za-z_][\w-]*)|\[(\d+)\]/g)].map(([, name, index]) =>
    name === undefined ? Number(index) : name,
  );
}

function select(event: unknown, path: readonly (string | number)[]): unknown {
  let value = event;
  for (const step of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof step === 'number' && !Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/** A log event as a JSON object, or `undefined` (JSON patterns match no other event). */
function parseEvent(line: string): unknown {
  if (!line.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
