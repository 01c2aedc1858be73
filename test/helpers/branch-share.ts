// For property tests whose predicate returns early on a refused input: a property that only
// ever met refused inputs would pass while checking nothing. This counts how many cases
// reached the accepted branch, reports the share, and fails under a floor.
import assert from 'node:assert/strict';

/** The least share of cases that must reach the accepted branch, unless a test says otherwise. */
export const ACCEPTED_FLOOR = 0.2;

/** Counts the cases of one property by branch; see {@link BranchShare.assertFloor}. */
export class BranchShare {
  #accepted = 0;
  #refused = 0;

  /** A case that took the refused branch; returns nothing, so `return share.refused()`. */
  refused(): void {
    this.#refused += 1;
  }

  /** A case that reached the accepted branch (the assertions that matter). */
  accepted(): void {
    this.#accepted += 1;
  }

  /**
   * Reports `accepted N of M cases (P %)` through `report` (a test's `t.diagnostic`) and
   * fails when the accepted share is under `floor`, or when no case ran at all.
   */
  assertFloor(report: (message: string) => void, floor = ACCEPTED_FLOOR): void {
    const total = this.#accepted + this.#refused;
    const share = total === 0 ? 0 : this.#accepted / total;
    const message = `accepted ${this.#accepted} of ${total} cases (${Math.round(share * 100)} %)`;
    report(message);
    assert.ok(
      total > 0 && share >= floor,
      `${message}: under the floor of ${floor * 100} %, the property checks too little`,
    );
  }
}
