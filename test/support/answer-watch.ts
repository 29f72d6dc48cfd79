import type { LoadResult } from '../../loadtest/run-load.js';

/** Follows the answers of a load run so a test can act mid-run (inject a fault, rotate a key). */
export interface AnswerWatch {
  /** Pass as `runLoad`'s `onAnswer`. */
  readonly onAnswer: (result: LoadResult) => void;
  /** Answers so far. */
  readonly answered: number;
  /**
   * Resolves once `count` answers that satisfy `matching` have arrived (all answers by default).
   * Rejects when the run ends first, so a schedule that cannot happen fails instead of hanging.
   */
  reached(count: number, matching?: (result: LoadResult) => boolean): Promise<void>;
  /** Call when `runLoad` has returned: waits that can no longer be met reject. */
  finish(): void;
}

interface Waiter {
  readonly count: number;
  readonly matching: (result: LoadResult) => boolean;
  seen: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** Creates an {@link AnswerWatch}. */
export function answerWatch(): AnswerWatch {
  const results: LoadResult[] = [];
  let waiters: Waiter[] = [];
  let finished = false;
  return {
    get answered() {
      return results.length;
    },
    onAnswer(result) {
      results.push(result);
      waiters = waiters.filter((waiter) => {
        if (waiter.matching(result)) waiter.seen += 1;
        if (waiter.seen < waiter.count) return true;
        waiter.resolve();
        return false;
      });
    },
    reached(count, matching = () => true) {
      const seen = results.filter(matching).length;
      if (seen >= count) return Promise.resolve();
      if (finished) return Promise.reject(new Error(`the run ended after ${seen} of ${count}`));
      return new Promise((resolve, reject) => {
        waiters.push({ count, matching, seen, resolve, reject });
      });
    },
    finish() {
      finished = true;
      for (const waiter of waiters) {
        waiter.reject(new Error(`the run ended after ${waiter.seen} of ${waiter.count} answers`));
      }
      waiters = [];
    },
  };
}
