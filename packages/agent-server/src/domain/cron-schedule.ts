import { CronExpressionParser } from "cron-parser";
import { ValidationError } from "../errors.js";

/** Whether `timezone` is an IANA zone name this runtime knows. */
export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Throws a 422 unless the schedule parses (5 fields, or 6 with seconds first) and the zone exists. */
export function validateSchedule(schedule: string, timezone: string): void {
  if (!isValidTimezone(timezone)) throw new ValidationError(`Unknown timezone: ${timezone}`);
  try {
    // Computing an occurrence also catches schedules that never happen (30 February).
    CronExpressionParser.parse(schedule, { tz: timezone }).next();
  } catch (error) {
    throw new ValidationError(`Invalid cron schedule "${schedule}": ${(error as Error).message}`);
  }
}

/**
 * Epoch ms of the first occurrence strictly after `afterMs`, read in `timezone`; null when there is
 * none before `endMs` (the schedule is over).
 */
export function nextOccurrence(
  schedule: string,
  timezone: string,
  afterMs: number,
  endMs: number | null,
): number | null {
  const next = CronExpressionParser.parse(schedule, { tz: timezone, currentDate: new Date(afterMs) })
    .next()
    .getTime();
  return endMs !== null && next > endMs ? null : next;
}
