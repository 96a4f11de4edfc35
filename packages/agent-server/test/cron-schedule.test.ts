import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isValidTimezone, nextOccurrence, validateSchedule } from "../src/domain/cron-schedule.js";
import { ValidationError } from "../src/errors.js";

const at = (iso: string) => Date.parse(iso);

describe("cron schedules", () => {
  it("the next occurrence is strictly after the given time, in UTC by default", () => {
    assert.equal(
      nextOccurrence("0 9 * * *", "UTC", at("2026-03-01T08:00:00Z"), null),
      at("2026-03-01T09:00:00Z"),
    );
    assert.equal(
      nextOccurrence("0 9 * * *", "UTC", at("2026-03-01T09:00:00Z"), null),
      at("2026-03-02T09:00:00Z"),
    );
  });
  it("six fields have seconds first", () => {
    assert.equal(
      nextOccurrence("* * * * * *", "UTC", at("2026-03-01T08:00:00.400Z"), null),
      at("2026-03-01T08:00:01Z"),
    );
    assert.equal(
      nextOccurrence("30 * * * * *", "UTC", at("2026-03-01T08:00:00Z"), null),
      at("2026-03-01T08:00:30Z"),
    );
  });
  it("reads the schedule in its timezone, across daylight saving changes", () => {
    // 09:00 in Paris is 08:00 UTC in winter and 07:00 UTC from 29 March 2026.
    assert.equal(
      nextOccurrence("0 9 * * *", "Europe/Paris", at("2026-03-27T12:00:00Z"), null),
      at("2026-03-28T08:00:00Z"),
    );
    assert.equal(
      nextOccurrence("0 9 * * *", "Europe/Paris", at("2026-03-28T12:00:00Z"), null),
      at("2026-03-29T07:00:00Z"),
    );
    assert.equal(
      nextOccurrence("0 9 * * *", "America/New_York", at("2026-01-10T00:00:00Z"), null),
      at("2026-01-10T14:00:00Z"),
    );
  });
  it("none after the end time", () => {
    const end = at("2026-03-01T09:30:00Z");
    assert.equal(
      nextOccurrence("0 9 * * *", "UTC", at("2026-03-01T08:00:00Z"), end),
      at("2026-03-01T09:00:00Z"),
    );
    assert.equal(nextOccurrence("0 9 * * *", "UTC", at("2026-03-01T09:00:00Z"), end), null);
  });
  it("refuses bad expressions, impossible dates and unknown zones with a 422", () => {
    assert.equal(isValidTimezone("Asia/Tokyo"), true);
    assert.equal(isValidTimezone("Mars/Olympus"), false);
    for (const [schedule, zone] of [
      ["not a cron", "UTC"],
      ["61 * * * *", "UTC"],
      ["0 0 30 2 *", "UTC"],
      ["* * * * *", "Mars/Olympus"],
    ] as const) {
      assert.throws(() => validateSchedule(schedule, zone), ValidationError, `${schedule} ${zone}`);
    }
    validateSchedule("*/5 * * * *", "Europe/Paris");
  });
});
