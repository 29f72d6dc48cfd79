/** A template's resources as far as their dependencies go. */
export type DependentResources = Readonly<
  Record<
    string,
    { readonly Type: string; readonly DependsOn?: unknown; readonly Properties?: unknown }
  >
>;

/**
 * Each resource's dependency depth: 0 for a resource that needs no other resource of the
 * template, otherwise one more than the deepest resource it names (`Ref`, `Fn::GetAtt`, a
 * `${…}` of `Fn::Sub`, `DependsOn`). CloudFormation may create every resource of one depth at
 * the same time, so the count per depth bounds how many create requests a service gets at once.
 *
 * @param resources - the template's `Resources`
 */
export function dependencyDepths(resources: DependentResources): Map<string, number> {
  const depths = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depths.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) throw new Error(`dependency cycle through ${id}`);
    visiting.add(id);
    const resource = resources[id];
    const needed = new Set([
      ...[resource?.DependsOn ?? []].flat().map(String),
      ...namedIds(resource?.Properties),
    ]);
    needed.delete(id);
    let depth = 0;
    for (const other of needed) {
      if (other in resources) depth = Math.max(depth, depthOf(other) + 1);
    }
    visiting.delete(id);
    depths.set(id, depth);
    return depth;
  };
  for (const id of Object.keys(resources)) depthOf(id);
  return depths;
}

/**
 * How many resources of the given types share each dependency depth, deepest count first.
 *
 * @param resources - the template's `Resources`
 * @param types - the resource types to count, e.g. `AWS::ApiGateway::Method`
 */
export function countsPerDepth(
  resources: DependentResources,
  types: readonly string[],
): Array<{ readonly depth: number; readonly count: number }> {
  const counts = new Map<number, number>();
  for (const [id, depth] of dependencyDepths(resources)) {
    if (types.includes(resources[id]?.Type ?? '')) counts.set(depth, (counts.get(depth) ?? 0) + 1);
  }
  return [...counts]
    .map(([depth, count]) => ({ depth, count }))
    .sort((a, b) => b.count - a.count || a.depth - b.depth);
}

/** Every logical id a value names through `Ref`, `Fn::GetAtt` or `Fn::Sub`. */
function namedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(namedIds);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const ids: string[] = [];
  if (typeof record.Ref === 'string') ids.push(record.Ref);
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') ids.push(getAtt[0]);
  if (typeof getAtt === 'string') ids.push(getAtt.split('.')[0] ?? '');
  const sub = record['Fn::Sub'];
  const text = Array.isArray(sub) ? sub[0] : sub;
  if (typeof text === 'string') {
    for (const [, name] of text.matchAll(/\$\{([^}!.]+)[^}]*\}/g)) ids.push(name ?? '');
  }
  return [...ids, ...Object.values(record).flatMap(namedIds)];
}
