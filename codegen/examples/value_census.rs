//! Counts what of a spec ends up as `serde_json::Value` in the generated models: named
//! types that are `Value` (or a map or list of it) and struct fields whose type holds
//! it. `cargo run -p codegen --example value_census -- <spec>...`
//!
//! A spec whose operations the generator refuses is counted over its
//! `components.schemas` alone (the line says so), so schema lowering can be measured
//! on documents whose operations are not yet supported.

use std::collections::BTreeSet;

use codegen::ir::{Ty, TypeDef};

/// Whether a type is `Value`, or a list, map or alias of it.
fn holds_json(ty: &Ty, json_aliases: &BTreeSet<String>) -> bool {
    match ty {
        Ty::Json => true,
        Ty::Named(n) => json_aliases.contains(n),
        Ty::Vec(inner) | Ty::Map(inner) => holds_json(inner, json_aliases),
        _ => false,
    }
}

/// Whether a type is a free-form object (`BTreeMap<String, Value>`), which promises an
/// object at least.
fn free_form(ty: &Ty) -> bool {
    matches!(ty, Ty::Map(inner) if **inner == Ty::Json)
}

fn main() -> std::process::ExitCode {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{path}: {e}");
                return std::process::ExitCode::from(2);
            }
        };
        let source = spec_model::Source {
            name: path.clone(),
            text,
        };
        let mut spec = match spec_model::parse(&source) {
            Ok(spec) => spec,
            Err(e) => {
                eprintln!("{path}: {e}");
                return std::process::ExitCode::from(2);
            }
        };
        let (lowered, scope) = match codegen::lower::lower(&spec) {
            Ok(lowered) => (lowered, "whole document"),
            Err(refused) => {
                eprintln!("{path}: operations refused ({refused:?}); counting components only");
                spec.paths.clear();
                match codegen::lower::lower(&spec) {
                    Ok(lowered) => (lowered, "components.schemas only"),
                    Err(e) => {
                        eprintln!("{path}: {e:?}");
                        return std::process::ExitCode::from(2);
                    }
                }
            }
        };
        let (api, warnings) = lowered;
        let mut json_aliases = BTreeSet::new();
        loop {
            let before = json_aliases.len();
            for t in &api.types {
                if let TypeDef::Alias(a) = t
                    && holds_json(&a.ty, &json_aliases)
                {
                    json_aliases.insert(a.name.clone());
                }
            }
            if json_aliases.len() == before {
                break;
            }
        }
        let mut types = 0;
        let mut json_types = 0;
        let mut fields = 0;
        let mut json_fields = 0;
        let mut free_form_fields = 0;
        let mut free_form_types = 0;
        for t in &api.types {
            types += 1;
            match t {
                TypeDef::Alias(a) if json_aliases.contains(&a.name) => {
                    json_types += 1;
                    free_form_types += usize::from(free_form(&a.ty));
                }
                TypeDef::Struct(s) => {
                    fields += s.fields.len();
                    json_fields += s
                        .fields
                        .iter()
                        .filter(|f| holds_json(&f.ty, &json_aliases))
                        .count();
                    free_form_fields += s.fields.iter().filter(|f| free_form(&f.ty)).count();
                }
                _ => {}
            }
        }
        println!(
            "{path} ({scope}): {json_types} of {types} types ({free_form_types} free-form \
             maps) and {json_fields} of {fields} fields ({free_form_fields} free-form maps) \
             hold serde_json::Value, directly or through an alias; {} warnings",
            warnings.len()
        );
        for w in &warnings {
            eprintln!("  warning at {}: {}", w.problem.pointer, w.problem.message);
        }
    }
    std::process::ExitCode::SUCCESS
}
