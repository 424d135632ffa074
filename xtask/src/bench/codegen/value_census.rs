//! How much of a generated crate is untyped JSON, counted the same way for this
//! generator's crate and for progenitor's: what issue 9 asks is how many *schemas and
//! fields* end up as `serde_json::Value`, so only the declared shapes of types are read
//! (struct fields, enum variants' data, type aliases), never function signatures, impls
//! or expressions, where a `Value` is plumbing rather than a schema given up on.
//!
//! Two kinds are told apart:
//!
//! - lowered: a field, variant or alias whose schema became `Value` (or a container of
//!   it, `Option<Value>`, `HashMap<String, Value>`), each occurrence once;
//! - fallback: the data of a forward-compatibility variant, which keeps as JSON a value
//!   the spec does *not* describe (an unknown tag or shape from a newer server) beside a
//!   typed variant for every branch the spec does describe. This generator marks them
//!   with one of [`codegen::emit::JSON_FALLBACK_DOCS`]; progenitor has no such variants.
//!   Typing them as something other than `Value` is not possible without losing the
//!   value: serde decodes tagged and untagged enums through its buffered `Content`,
//!   which `serde_json::value::RawValue` cannot be read from, and a renamed `Value` would
//!   only hide the count.
//!
//! A module named `builder` is skipped: progenitor's builders mirror every struct's
//! fields as `Result<T, String>`, which would count each of its `Value` fields twice.

use std::path::Path;

use syn::visit::Visit;

/// `serde_json::Value` in one crate's declared types.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ValueCensus {
    /// Fields, variants and aliases whose schema was lowered to `Value`.
    pub lowered: usize,
    /// Forward-compatibility fallback variants holding `Value`.
    pub fallbacks: usize,
}

/// Counts type paths ending in `serde_json::Value` (leading `::` or not) in one type.
#[derive(Default)]
struct ValuePaths(usize);

impl<'ast> Visit<'ast> for ValuePaths {
    fn visit_type_path(&mut self, node: &'ast syn::TypePath) {
        let mut idents = node.path.segments.iter().rev().map(|s| s.ident.to_string());
        if idents.next().as_deref() == Some("Value")
            && idents.next().as_deref() == Some("serde_json")
        {
            self.0 += 1;
        }
        syn::visit::visit_type_path(self, node);
    }
}

fn value_paths(ty: &syn::Type) -> usize {
    let mut paths = ValuePaths::default();
    paths.visit_type(ty);
    paths.0
}

fn fields_values(fields: &syn::Fields) -> usize {
    fields.iter().map(|f| value_paths(&f.ty)).sum()
}

/// The text of an item's doc attributes, whitespace-normalised.
fn doc_text(attrs: &[syn::Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_fallback(variant: &syn::Variant) -> bool {
    let doc = doc_text(&variant.attrs);
    codegen::emit::JSON_FALLBACK_DOCS
        .iter()
        .any(|d| d.split_whitespace().collect::<Vec<_>>().join(" ") == doc)
}

impl<'ast> Visit<'ast> for ValueCensus {
    fn visit_item_struct(&mut self, node: &'ast syn::ItemStruct) {
        self.lowered += fields_values(&node.fields);
    }

    fn visit_item_enum(&mut self, node: &'ast syn::ItemEnum) {
        for variant in &node.variants {
            let found = fields_values(&variant.fields);
            if is_fallback(variant) {
                self.fallbacks += found;
            } else {
                self.lowered += found;
            }
        }
    }

    fn visit_item_type(&mut self, node: &'ast syn::ItemType) {
        self.lowered += value_paths(&node.ty);
    }

    fn visit_item_mod(&mut self, node: &'ast syn::ItemMod) {
        if node.ident != "builder" {
            syn::visit::visit_item_mod(self, node);
        }
    }

    // Signatures and bodies are plumbing, not schemas.
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    fn visit_item_impl(&mut self, _: &'ast syn::ItemImpl) {}
    fn visit_item_trait(&mut self, _: &'ast syn::ItemTrait) {}
}

/// The census over every `.rs` file under `dir`.
pub fn count(dir: &Path) -> Result<ValueCensus, String> {
    let mut total = ValueCensus::default();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            let sub = count(&path)?;
            total.lowered += sub.lowered;
            total.fallbacks += sub.fallbacks;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            total.visit_file(&file);
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn census(source: &str) -> ValueCensus {
        let mut census = ValueCensus::default();
        census.visit_file(&syn::parse_file(source).unwrap());
        census
    }

    #[test]
    fn fields_variants_and_aliases_count_and_plumbing_does_not() {
        let found = census(
            "pub struct A { a: serde_json::Value, b: Option<::serde_json::Value>, c: Vec<String> }
             pub struct N(pub serde_json::Value);
             pub type B = std::collections::HashMap<String, serde_json::Value>;
             pub enum E { Json(serde_json::Value), Text(String) }
             fn f() -> serde_json::Value { let _ = serde_json::Value::Null; serde_json::json!(1) }
             impl From<serde_json::Value> for A { fn from(v: serde_json::Value) -> A { todo!() } }
             mod inner { pub struct C { pub c: serde_json::Value } }
             pub mod builder { pub struct A { a: Result<serde_json::Value, String> } }",
        );
        assert_eq!(
            found,
            ValueCensus {
                lowered: 6,
                fallbacks: 0
            }
        );
    }

    #[test]
    fn the_generators_fallback_variants_are_counted_apart() {
        let union_doc = codegen::emit::JSON_FALLBACK_DOCS[0]
            .lines()
            .map(|l| format!("/// {l}\n"))
            .collect::<String>();
        let found = census(&format!(
            "#[serde(tag = \"type\")]
             pub enum U {{ A {{ a: i64 }}, {union_doc} #[serde(untagged)] Unknown(serde_json::Value) }}
             pub enum V {{ /// {} \n Unknown(serde_json::Value), /// Any JSON.\n Any(serde_json::Value) }}",
            codegen::emit::JSON_FALLBACK_DOCS[1]
        ));
        assert_eq!(
            found,
            ValueCensus {
                lowered: 1,
                fallbacks: 2
            }
        );
    }
}
