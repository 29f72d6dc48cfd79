import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../devkit/tool-io.js';
import { InvalidBookingEventError } from '../../../lambda/consumer/handler.js';
import { WebhookReceiverError } from '../../../lambda/core/errors.js';
import { InvalidConfigurationError } from '../../../lib/configuration-error.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The source folders: everything but the tests. */
const SOURCE_FOLDERS = [
  'bench',
  'bin',
  'build',
  'cli',
  'devkit',
  'lambda',
  'lib',
  'loadtest',
  'local',
];

/** The folders whose throws reach users: the runtime, the construct, the local run and the tools. */
const SHIPPED_FOLDERS = ['cli', 'devkit', 'lambda', 'lib', 'local'];

/** Code that runs in the inspector's browser page, which has no use for the project's errors. */
const BROWSER_CODE = /^local\/inspector\/page\//;

/** `class X extends Y` of every source file: X -> Y. */
function declaredClasses(): Map<string, string> {
  const parents = new Map<string, string>();
  for (const folder of SOURCE_FOLDERS) {
    const files = readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' });
    for (const file of files.filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(join(ROOT, folder, file), 'utf8');
      for (const [, name, parent] of text.matchAll(/\bclass (\w+) extends (\w+)/g)) {
        parents.set(String(name), String(parent));
      }
    }
  }
  return parents;
}

describe('Class: WebhookReceiverError', () => {
  it('is what the runtime, the construct, the local run and the tools throw, never a plain Error', () => {
    // Act
    const plainThrows = SHIPPED_FOLDERS.flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
        .map((file) => `${folder}/${file}`)
        .filter((file) => file.endsWith('.ts') && !BROWSER_CODE.test(file))
        .filter((file) => /\bnew Error\(/.test(readFileSync(join(ROOT, file), 'utf8'))),
    );

    // Assess
    expect(plainThrows).toEqual([]);
  });

  it('is the base of every error class the source declares', () => {
    // Prepare
    const parents = declaredClasses();

    // Act: each error class whose chain of declared parents does not end at the base.
    const outside = [...parents.keys()]
      .filter((name) => name.endsWith('Error') && name !== WebhookReceiverError.name)
      .filter((name) => {
        let parent = parents.get(name);
        while (parent !== undefined && parent !== WebhookReceiverError.name) {
          parent = parents.get(parent);
        }
        return parent === undefined;
      });

    // Assess
    expect(parents.size).toBeGreaterThan(5);
    expect(outside).toEqual([]);
  });

  it('is what the construct, the tools and the consumer throw', () => {
    // Act
    const errors = [
      new InvalidConfigurationError('queueProps is not allowed with existingQueue'),
      new UsageError('unknown option --x', { showUsage: true }),
      new InvalidBookingEventError('data.id: expected string'),
    ];

    // Assess
    for (const error of errors) expect(error).toBeInstanceOf(WebhookReceiverError);
    expect(errors.map(({ name }) => name)).toEqual([
      'InvalidConfigurationError',
      'UsageError',
      'InvalidBookingEventError',
    ]);
  });

  it('keeps the cause it wraps', () => {
    // Prepare
    const cause = new Error('connect ECONNREFUSED');

    // Act
    const error = new WebhookReceiverError('Secrets Manager did not answer', { cause });

    // Assess
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('Secrets Manager did not answer');
  });
});
