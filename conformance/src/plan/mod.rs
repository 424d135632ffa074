//! Deriving cases from the spec: for each operation its base request, then the cases of
//! every check, in the order of [`crate::checks::ALL`] (each check's module derives its
//! own: a positive case and generated examples, negative cases and defects
//! (`--max-examples`, see [`crate::inputs`]), length boundaries, `ignored_auth` on secured
//! operations, the probes of undeclared methods and paths, list encodings, the chains of
//! each create). Base inputs come from the contract files' `defaults`, else from the spec's
//! examples, else from the target's answers (path values, body references; [`Pool`]) or
//! the generator. The seed fixes every generated value, so the same seed gives the same
//! cases in the same order.

//!
//! The toolkit the checks derive their cases with (the [`Builder`], the base request,
//! request and value helpers) lives below in [`builder`], which the checks import; this
//! module, above them, runs every check's `derive` over every operation.

pub(crate) use crate::checks::CHAIN_CREATED;

pub(crate) mod builder;
pub(crate) mod graph;
mod unique;

pub(crate) use builder::*;

use crate::case::Case;
use crate::contracts::Contracts;
use crate::effect::Effect;
use crate::inputs::Inputs;
use crate::spec::Spec;
use crate::state::Pool;

/// Derives the cases of every operation, in spec order.
pub fn derive(spec: &Spec, contracts: &Contracts, opts: PlanOptions) -> Vec<Case> {
    derive_with(spec, contracts, opts, &Pool::default())
}

/// [`derive`], with path values the target's own answers gave ([`Pool`]) where the spec
/// and the contract files give none.
pub fn derive_with(
    spec: &Spec,
    contracts: &Contracts,
    opts: PlanOptions,
    pool: &Pool,
) -> Vec<Case> {
    let mut rng = Rng::new(opts.seed);
    let inputs = Inputs::new(&spec.doc, opts.seed, opts.max_examples);
    let mut out = Vec::new();
    for op in &spec.operations {
        let base = base(op, contracts, pool, &inputs, opts.made_up);
        let missing = base.missing(op);
        let mut b = Builder {
            spec,
            contracts,
            op,
            base: &base,
            inputs: &inputs,
            pool,
            opts,
            complete: missing.is_empty(),
            first: out.is_empty(),
            rng: &mut rng,
            cases: Vec::new(),
        };
        for derive in crate::checks::ALL.iter().filter_map(|d| d.derive) {
            derive(&mut b);
        }
        if !missing.is_empty() {
            let why = missing_reason(op, &missing);
            for c in &mut b.cases {
                // A probe of another path (unknown_path) needs none of the operation's
                // inputs.
                let own_path = c.steps.iter().any(|s| s.request.path.is_none());
                if own_path && c.skip.is_none() {
                    c.skip = Some(why.clone());
                }
            }
        }
        if base.made_up {
            for c in &mut b.cases {
                c.id.push_str(MADE_UP);
            }
        }
        if let (Effect::Create, Some(decl), true) = (op.effect, &op.body, base.body_generated) {
            unique::apply(&mut b.cases, op, decl, &inputs, opts.seed);
        }
        out.extend(b.cases);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Expect;
    use crate::registry::Check;
    use crate::spec::Level;
    use serde_json::json;
    use std::path::Path;

    fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    #[test]
    fn same_seed_same_cases_other_seed_other_values() {
        let spec = spec();
        let c = Contracts::default();
        let o = PlanOptions {
            seed: 7,
            auth_refusal: None,
            max_examples: 1,
            made_up: false,
        };
        let a: Vec<String> = derive(&spec, &c, o)
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        let b: Vec<String> = derive(&spec, &c, o)
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        let d: Vec<String> = derive(&spec, &c, PlanOptions { seed: 8, ..o })
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, d);
    }

    #[test]
    fn predicts_the_three_outcomes_of_the_name_rules() {
        let spec = spec();
        let op = spec.operation("updateContactInfoName").unwrap();
        let body = |f: &str, l: &str| json!({"firstName": f, "lastName": l, "country": "GB", "phone": "1"});
        assert!(matches!(
            predict(
                op,
                &body(&"é".repeat(30), &"é".repeat(30)),
                &mut Patterns::default()
            )
            .0,
            Expect::Success
        ));
        assert!(matches!(
            predict(
                op,
                &body(&"é".repeat(30), &"é".repeat(31)),
                &mut Patterns::default()
            )
            .0,
            Expect::BusinessRejected(_)
        ));
        assert!(matches!(
            predict(op, &body(&"a".repeat(64), "b"), &mut Patterns::default()).0,
            Expect::BusinessRejected(_)
        ));
        let (e, l) = predict(op, &body(&"a".repeat(65), "b"), &mut Patterns::default());
        assert!(matches!(
            e,
            Expect::Rejected {
                status: Some((400, Level::Should)),
                ..
            }
        ));
        assert_eq!(l, Level::Must);
        let (_, l) = predict(op, &body("   ", "b"), &mut Patterns::default());
        assert_eq!(l, Level::Should);
    }

    #[test]
    fn without_permission_no_case_of_a_writing_operation_is_sent() {
        let spec = spec();
        let mut cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
                made_up: false,
            },
        );
        let gate = crate::safety::Gate::new(
            &spec,
            crate::effect::Permissions::default(),
            &["updateContactInfoName".to_string()],
        );
        gate.apply(&mut cases);
        let update: Vec<_> = cases
            .iter()
            .filter(|c| c.operation == "updateContactInfoName")
            .collect();
        assert!(!update.is_empty());
        // Requests without credentials included: a server that ignores them would write.
        // The one GET of the path (its undeclared-method probe) changes nothing.
        assert!(
            update
                .iter()
                .filter(|c| c.check != Check::UndeclaredMethod)
                .all(|c| c.skip.is_some())
        );
        assert!(
            update
                .iter()
                .filter(|c| c.check == Check::UndeclaredMethod)
                .all(|c| c.steps[0].request.method.as_deref() == Some("GET"))
        );
    }

    /// A spec with no `x-` extension: one path with an operation declaring 400 and 422,
    /// one declaring only 422, both taking JSON.
    fn foreign() -> Spec {
        Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {
                  "/flows": {"post": {"operationId": "createFlow",
                    "requestBody": {"required": true, "content": {"application/json": {
                      "schema": {"type": "object", "required": ["name"],
                        "properties": {"name": {"type": "string"}}},
                      "example": {"name": "a"}}}},
                    "responses": {"201": {"description": "made"},
                      "400": {"description": "bad"}, "422": {"description": "invalid"}}}},
                  "/flows/{id}": {"get": {"operationId": "readFlow",
                    "parameters": [{"name": "id", "in": "path", "required": true,
                      "schema": {"type": "string"}, "example": "f1"},
                      {"name": "limit", "in": "query", "required": true,
                      "schema": {"type": "integer"}, "example": 1}],
                    "responses": {"200": {"description": "ok"},
                      "422": {"description": "invalid"}}}}}}"#,
        )
        .unwrap()
    }

    fn foreign_cases() -> Vec<Case> {
        derive(
            &foreign(),
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
                made_up: false,
            },
        )
    }

    #[test]
    fn a_malformed_request_fixes_a_status_only_where_one_is_declared() {
        let cases = foreign_cases();
        let status_of = |id: &str| match &cases.iter().find(|c| c.id == id).unwrap().steps[0].expect
        {
            Expect::Rejected { status, .. } => status.map(|(s, _)| s),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            status_of("createFlow/missing-field/name"),
            None,
            "400 and 422 declared"
        );
        assert_eq!(status_of("readFlow/missing-param/limit"), Some(422));
        // The built-in spec declares 400 alone: fixed, at the BadRequest response's level.
        let builtin = derive(
            &spec(),
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
                made_up: false,
            },
        );
        let c = builtin
            .iter()
            .find(|c| c.id == "getCategoryPositionLimit/missing-param/id")
            .unwrap();
        assert!(matches!(
            c.steps[0].expect,
            Expect::Rejected {
                status: Some((400, Level::Should)),
                ..
            }
        ));
    }

    #[test]
    fn the_generic_probes_run_on_a_spec_without_extensions() {
        let cases = foreign_cases();
        let one =
            |check: Check| -> Vec<&Case> { cases.iter().filter(|c| c.check == check).collect() };
        let unknown = one(Check::UnknownPath);
        assert_eq!(unknown.len(), 1);
        let path = unknown[0].steps[0].request.path.as_deref().unwrap();
        // `/flows/conformance-unknown-path` would reach `/flows/{id}`: the probe goes to the root.
        assert_eq!(path, "/conformance-unknown-path");
        assert!(matches!(
            unknown[0].steps[0].expect,
            Expect::Rejected {
                status: Some((404, Level::Should)),
                ..
            }
        ));
        let methods = one(Check::UndeclaredMethod);
        assert_eq!(methods.len(), 2, "one per path");
        assert!(methods.iter().all(|c| c.level == Level::Should));
        assert!(matches!(
            methods[0].steps[0].expect,
            Expect::MethodNotAllowed {
                status: 405,
                allow_header: true,
                ..
            }
        ));
        let media = one(Check::UnsupportedMediaType);
        assert_eq!(media.len(), 1);
        assert!(matches!(
            media[0].steps[0].expect,
            Expect::Rejected { status: None, .. }
        ));
        assert!(one(Check::PayloadTooLarge).is_empty());
        assert!(one(Check::AlternateEncodings).is_empty());
    }
}
