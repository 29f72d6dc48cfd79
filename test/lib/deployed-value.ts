/**
 * A template value as CloudFormation would deploy it: every `Ref` and `Fn::GetAtt` replaced by what
 * `physical` says the resource gives, every `Fn::Join` joined. Other intrinsic functions are not
 * expected in the values the tests read, and throw.
 * @param value - a value of the synthesized template
 * @param physical - the deployed value of a resource's `Ref` (no attribute) or attribute
 */
export function deployedValue(
  value: unknown,
  physical: (logicalId: string, attribute?: string) => string,
): unknown {
  if (typeof value !== 'object' || value === null) {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((item) => deployedValue(item, physical));
  }
  const entries = Object.entries(value);
  const [key, argument] = entries[0] ?? [];
  if (entries.length === 1 && key === 'Ref') {
    return physical(argument as string);
  }
  if (entries.length === 1 && key === 'Fn::GetAtt') {
    const [logicalId, attribute] = argument as [string, string];
    return physical(logicalId, attribute);
  }
  if (entries.length === 1 && key === 'Fn::Join') {
    const [separator, parts] = argument as [string, unknown[]];
    return parts.map((part) => deployedValue(part, physical)).join(separator);
  }
  if (entries.length === 1 && key?.startsWith('Fn::')) {
    throw new Error(`deployedValue does not evaluate ${key}`);
  }
  return Object.fromEntries(entries.map(([name, item]) => [name, deployedValue(item, physical)]));
}
