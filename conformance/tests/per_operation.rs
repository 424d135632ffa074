//! One test per operation of the notes app, as a developer's own `cargo test` would have
//! them: `cargo test -p conformance --test per_operation -- --list` lists them, `--
//! read_note` runs one, and nextest runs them as it runs any test.

mod notes_app;

fn main() {
    let (app, _) = notes_app::app(false);
    conformance::Suite::spec_text("notes.yaml", notes_app::SPEC)
        // The app is the test's own: the run may change and delete what it finds there.
        .allow_destructive()
        .test_main(app)
}
