//! The HTML report read as a browser reads it: parsed with `scraper`, it shows the run's
//! verdict and header, one table per operation, every result of the JSON report, and for
//! each failure what was expected, what came back and the curl line; it fetches nothing.
//!
//! `rendered_by_a_headless_browser` also opens the file in Chromium and checks that the
//! filter script ran. It is ignored in a plain run (it needs a browser);
//! `cargo xtask browser`, a step of `cargo xtask test`, installs Chromium and runs it.

#![cfg(feature = "embedded")]

mod common;

use std::path::Path;

use conformance::execute;
use reference_server::{Config, Fault};
use scraper::{Html, Selector};

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

fn text(doc: &Html, s: &str) -> String {
    doc.select(&sel(s))
        .next()
        .unwrap_or_else(|| panic!("no {s} in the page"))
        .text()
        .collect::<String>()
}

/// Runs the embedded server with `faults`, writing both reports; returns the parsed page
/// and the JSON document.
async fn run(faults: Vec<Fault>, dir: &Path) -> (Html, serde_json::Value, String) {
    let mut a = common::embedded_args();
    a.html = Some(dir.join("report.html"));
    a.json = Some(dir.join("report.json"));
    let config = Config {
        faults,
        ..Config::default()
    };
    execute(&a, config).await.expect("run completes");
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    (Html::parse_document(&page), json, page)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_run_shows_every_result_and_each_failure_with_its_curl_line() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, json, _) = run(vec![Fault::EnumMisspelled], dir.path()).await;

    assert_eq!(text(&doc, "header#verdict h1"), "FAILED");
    let header = doc.select(&sel("header#verdict")).next().unwrap();
    assert_eq!(header.value().attr("data-exit-code"), Some("1"));
    assert_eq!(
        text(&doc, "#target"),
        format!(
            "{} (embedded reference server)",
            json["target"].as_str().unwrap()
        )
    );
    assert_eq!(json["run"]["embedded"], true);
    assert!(text(&doc, "#spec").contains(json["run"]["spec"]["digest"].as_str().unwrap()));
    assert_eq!(text(&doc, "#selection"), "all operations and checks");
    assert!(text(&doc, "#credentials").contains("bearer token"));
    assert_eq!(text(&doc, "#seed"), json["seed"].to_string());
    let totals = text(&doc, "#totals");
    assert!(
        totals.contains(&format!("{} failed", json["totals"]["failed"])),
        "{totals}"
    );

    let results = json["results"].as_array().unwrap();
    assert_eq!(doc.select(&sel("tr.result")).count(), results.len());
    let mut operations: Vec<&str> = results
        .iter()
        // Checks with nothing to judge belong to no operation: a table of their own.
        .filter(|r| r["verdict"] != "not_applicable")
        .map(|r| r["operation"].as_str().unwrap())
        .collect();
    operations.sort_unstable();
    operations.dedup();
    let sections: Vec<String> = doc
        .select(&sel("section.operation"))
        .map(|s| s.value().attr("data-operation").unwrap().to_owned())
        .collect();
    assert_eq!(
        sections, operations,
        "one table per operation, in name order"
    );

    let failed = results.iter().filter(|r| r["verdict"] == "failed").count();
    assert!(failed > 0, "the fault was not caught");
    let failed_rows: Vec<_> = doc.select(&sel("tr.result[data-verdict=failed]")).collect();
    assert_eq!(failed_rows.len(), failed);
    for row in failed_rows {
        let curl = row
            .select(&sel("code.curl"))
            .next()
            .expect("a failure without a curl line");
        assert!(curl.text().collect::<String>().starts_with("curl "));
        assert!(row.select(&sel("dd.got")).next().is_some(), "no `got`");
        assert_eq!(row.value().attr("data-level"), Some("MUST"));
    }
    // A failure is listed before the passes of its operation.
    for section in doc.select(&sel("section.operation")) {
        let verdicts: Vec<&str> = section
            .select(&sel("tr.result"))
            .map(|r| r.value().attr("data-verdict").unwrap())
            .collect();
        let first_pass = verdicts.iter().position(|v| *v == "passed");
        let last_fail = verdicts.iter().rposition(|v| *v == "failed");
        if let (Some(p), Some(f)) = (first_pass, last_fail) {
            assert!(f < p, "a failure after a pass: {verdicts:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _, page) = run(Vec::new(), dir.path()).await;
    assert_eq!(text(&doc, "header#verdict h1"), "PASSED");
    assert_eq!(
        doc.select(&sel("[src], link, [href], iframe, object, embed, img"))
            .count(),
        0,
        "the page references another resource"
    );
    assert!(!page.contains("@import") && !page.contains("url("));
    assert_eq!(doc.select(&sel("script")).count(), 1);
    assert_eq!(doc.select(&sel("style")).count(), 1);
    // Both filters offer every choice.
    let levels: Vec<_> = doc
        .select(&sel("#level-filter option"))
        .map(|o| o.value().attr("value").unwrap())
        .collect();
    assert_eq!(levels, ["", "MUST", "SHOULD"]);
    let verdicts: Vec<_> = doc
        .select(&sel("#verdict-filter option"))
        .map(|o| o.value().attr("value").unwrap())
        .collect();
    assert_eq!(
        verdicts,
        [
            "problems", "", "failed", "warning", "known", "skipped", "passed"
        ]
    );
}

/// The browser named by `CHROMIUM_BIN`, else `chromium` on the path.
fn chromium() -> Option<String> {
    let candidate = std::env::var("CHROMIUM_BIN").unwrap_or_else(|_| "chromium".into());
    std::process::Command::new(&candidate)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| candidate)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium: `cargo xtask browser` installs it and runs this test"]
async fn rendered_by_a_headless_browser() {
    let Some(browser) = chromium() else {
        panic!("Chromium is not installed (set CHROMIUM_BIN or run `cargo xtask browser`)");
    };
    let dir = tempfile::tempdir().unwrap();
    let (doc, json, _) = run(vec![Fault::EnumMisspelled], dir.path()).await;
    // The checks that judged nothing are listed in a section of their own, outside the
    // filtered results.
    let rows = doc
        .select(&sel("tr.result:not([data-verdict=not_applicable])"))
        .count();
    let problems = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] != "passed" && r["verdict"] != "not_applicable")
        .count();
    let url = format!("file://{}", dir.path().join("report.html").display());
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--dump-dom",
            ])
            .arg(url)
            .output()
    })
    .await
    .unwrap()
    .expect("Chromium starts");
    assert!(out.status.success(), "Chromium failed: {out:?}");
    let dom = Html::parse_document(&String::from_utf8_lossy(&out.stdout));
    let body = dom.select(&sel("body")).next().unwrap();
    assert_eq!(
        body.value().attr("data-ready"),
        Some("true"),
        "the filter script did not run"
    );
    // The default filter shows the problems only.
    assert_eq!(
        text(&dom, "#shown"),
        format!("{problems} of {rows} results shown")
    );
    let visible = dom
        .select(&sel("tr.result:not([hidden])"))
        .filter(|r| {
            !matches!(
                r.value().attr("data-verdict"),
                Some("passed" | "not_applicable")
            )
        })
        .count();
    assert_eq!(visible, problems);
    assert_eq!(
        dom.select(&sel("tr.result[data-verdict=passed]:not([hidden])"))
            .count(),
        0
    );
}
