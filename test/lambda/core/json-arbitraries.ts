import fc from 'fast-check';

/** Whitespace a sender may put between JSON tokens. */
const gap = fc.constantFrom('', '', ' ', '  ', '\n', '\r\n', '\t', '\n    ', '\r\n\t\t');

/**
 * A JSON text for `value` written with arbitrary whitespace between its tokens: an independent
 * little serializer, so the squasher is checked against something other than itself. Strings and
 * numbers are written by `JSON.stringify`; optionally every `/` in them as `\/` (PHP's default).
 */
export function renderWithWhitespace(
  value: unknown,
  gaps: readonly string[],
  escapeSlashes: boolean,
): string {
  let next = 0;
  const space = () => gaps[next++ % gaps.length] ?? '';
  const scalar = (item: unknown) => {
    const text = JSON.stringify(item);
    return escapeSlashes ? text.replaceAll('/', '\\/') : text;
  };
  const render = (item: unknown): string => {
    if (Array.isArray(item)) {
      return `[${space()}${item.map((element) => `${render(element)}${space()}`).join(`,${space()}`)}]`;
    }
    if (item !== null && typeof item === 'object') {
      const members = Object.entries(item).map(
        ([key, member]) => `${scalar(key)}${space()}:${space()}${render(member)}${space()}`,
      );
      return `{${space()}${members.join(`,${space()}`)}}`;
    }
    return scalar(item);
  };
  return `${space()}${render(value)}${space()}`;
}

/** Arbitrary JSON values, whitespace to write them with, and whether slashes are escaped. */
export const jsonDocument = fc.record({
  value: fc.jsonValue({ maxDepth: 4 }),
  gaps: fc.array(gap, { minLength: 1, maxLength: 40 }),
  escapeSlashes: fc.boolean(),
});
