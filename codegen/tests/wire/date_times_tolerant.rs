//! Date-times without their UTC offset, tolerant: copied into the crate generated from
//! `tests/specs/date_times.yaml` with `--tolerant` (`Options::tolerant`) by
//! `tests/compile.rs`. What the strict crate refuses (`tests/wire/date_times.rs`) reads as
//! UTC; anything else reads as in the strict crate.
use gen_date_times_tolerant::models::Event;

fn event(json: &str) -> Result<Event, serde_json::Error> {
    serde_json::from_str(json)
}

#[test]
fn an_offsetless_date_time_reads_as_utc_in_every_position() {
    let e = event(
        r#"{"id":"a","changed_on":"2026-11-27T23:19:25.390423","started_at":"2026-11-27T01:02:03","ended_at":"2026-11-28T00:00:00","seen":["2026-11-27T10:00:00"],"reminders":["2026-11-27T11:00:00"]}"#,
    )
    .unwrap();
    assert_eq!(e.changed_on.to_rfc3339(), "2026-11-27T23:19:25.390423+00:00");
    assert_eq!(e.started_at.unwrap().to_rfc3339(), "2026-11-27T01:02:03+00:00");
    assert_eq!(e.ended_at.unwrap().to_rfc3339(), "2026-11-28T00:00:00+00:00");
    assert_eq!(e.seen[0].to_rfc3339(), "2026-11-27T10:00:00+00:00");
    assert_eq!(e.reminders.unwrap()[0].to_rfc3339(), "2026-11-27T11:00:00+00:00");
}

#[test]
fn an_offset_is_kept_and_garbage_still_fails() {
    let e = event(r#"{"id":"a","changed_on":"2026-11-27T23:19:25+02:00","started_at":null,"seen":[]}"#)
        .unwrap();
    assert_eq!(e.changed_on.offset().local_minus_utc(), 2 * 3600);
    let err = event(r#"{"id":"a","changed_on":"yesterday","started_at":null,"seen":[]}"#).unwrap_err();
    assert!(err.to_string().starts_with("not an RFC 3339 date-time"), "{err}");
}
