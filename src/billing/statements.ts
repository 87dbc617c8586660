/**
 * The two statements that move a generation's money, owned here although
 * their SQL is in the store (a dependency rule lets nothing outside
 * src/billing/ reach them):
 * - the reservation, taken in the statement that accepts a generation
 *   (store/accepting.ts): the hold, the generation, its job and the
 *   Idempotency-Key's link commit together, or nothing does (402);
 * - the charge and release, taken in the statement that finishes attempts
 *   (store/finishing.ts): the attempt's charge, the release of the rest of the
 *   hold, the outputs and the event commit together, once per attempt.
 * Each is one round trip, which is why they are not split into a billing call
 * and a generation call; the settler (settler.ts) applies their effect on the
 * wallet row later, in batches.
 */
export {
  reserveAndAccept,
  type Acceptance,
  type AcceptOutcome,
} from '../store/accepting.js';
export {
  chargeAndFinish,
  MAX_FINISH_BATCH,
  type AttemptEnd,
  type Finishing,
} from '../store/finishing.js';
