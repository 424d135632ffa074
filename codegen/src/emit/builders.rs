//! Constructors and setters of the models a request body holds, in `models.rs`.
//!
//! Request models are `#[non_exhaustive]`, so that a field the spec gains later does not
//! break a user's struct literal: they are built with `new(required…)` (when a field is
//! required), the named constructors of `x-constructors` and `with_…` setters of the
//! optional fields. Only request models get them: a user reads answers and rarely builds
//! one, and every emitted function costs `cargo check` time in every dependent build.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::{ident, owned};
use crate::ir::{Api, Field, NamedConstructor, StructDef, Ty, TypeDef};

/// `#[non_exhaustive]` for a request model (nothing for other models): placed on the
/// struct by the models emitter.
pub fn attributes(s: &StructDef) -> TokenStream {
    if s.request {
        quote!(#[non_exhaustive])
    } else {
        TokenStream::new()
    }
}

/// The `impl` blocks with the constructors and setters of every request model.
pub fn emit(api: &Api) -> TokenStream {
    let blocks = blocks(api, false).into_iter().map(Block::into_tokens);
    quote!(#(#blocks)*)
}

/// One request model's `impl` block (`header { members }`) and the items after it (a
/// typestate builder's).
pub(super) struct Block {
    pub(super) header: TokenStream,
    pub(super) members: Vec<Member>,
    pub(super) after: TokenStream,
}

/// A member of a [`Block`]: its tokens, or the text `prettyplease` prints for them (see
/// [`setter_text`]).
pub(super) enum Member {
    Tokens(TokenStream),
    Text(String),
}

impl Block {
    /// The block's tokens, as [`emit`] gives them (every member a [`Member::Tokens`]).
    fn into_tokens(self) -> TokenStream {
        let Block {
            header,
            members,
            after,
        } = self;
        let members = members.into_iter().map(|m| match m {
            Member::Tokens(t) => t,
            Member::Text(_) => unreachable!("a block made for its tokens has no text"),
        });
        quote! {
            #header {
                #(#members)*
            }
            #after
        }
    }
}

/// Every request model's [`Block`]; with `print_setters`, the setters [`setter_text`]
/// can print as text.
pub(super) fn blocks(api: &Api, print_setters: bool) -> Vec<Block> {
    let taken: std::collections::BTreeSet<&str> = api.types.iter().map(TypeDef::name).collect();
    api.types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) if s.request => Some(builders(s, &taken, print_setters)),
            _ => None,
        })
        .collect()
}

/// Whether two required fields take the same type, so that positional arguments could
/// be swapped without the compiler noticing (`start, end`: two strings).
pub(super) fn swappable(required: &[&Field]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    required
        .iter()
        .any(|f| !seen.insert(owned(&f.ty, &TokenStream::new()).to_string()))
}

/// `Name::builder()` and its `NameBuilder`, for a body whose required fields include
/// several of one type: one type parameter per required field, `()` until its setter
/// has run and the field's type after, so `build()` (defined only where every parameter
/// is set) cannot be called before each required field was given by name, and no two
/// can be swapped. Setting a field twice does not compile either (its setter is defined
/// only where it is unset).
/// Returns `builder()` (for the model's own `impl`) and the builder's items.
fn typestate(
    s: &StructDef,
    required: &[&Field],
    taken: &std::collections::BTreeSet<&str>,
) -> (TokenStream, TokenStream) {
    let model = ident(&s.name);
    let builder_name = std::iter::once(format!("{}Builder", s.name))
        .chain((2..).map(|n| format!("{}Builder{n}", s.name)))
        .find(|n| !taken.contains(n.as_str()))
        .unwrap_or_default();
    let builder = ident(&builder_name);
    let params: Vec<proc_macro2::Ident> = (0..required.len())
        .map(|i| ident(&format!("S{i}")))
        .collect();
    let names: Vec<proc_macro2::Ident> = required.iter().map(|f| ident(&f.name)).collect();
    let set_types: Vec<TokenStream> = required
        .iter()
        .map(|f| owned(&f.ty, &TokenStream::new()))
        .collect();
    let wires: Vec<String> = required.iter().map(|f| format!("`{}`", f.wire)).collect();
    let doc = docs::outer(&format!(
        "Builds a [`{model}`] with its required fields ({}) each set by name, in any \
         order: `build()` exists only once every one is set, so two fields of one type \
         cannot be swapped as positional arguments could. Each type parameter is `()` \
         until its field is set. Start with [`{model}::builder`].{}",
        wires.join(", "),
        if s.fields.iter().any(Field::optional) {
            " Set optional fields on the built value with its `with_…` methods."
        } else {
            ""
        }
    ));
    let fields_doc = required
        .iter()
        .map(|f| docs::outer(&format!("`{}`: `()` until set.", f.wire)));
    let unset = required.iter().map(|_| quote!(()));
    // A builder of many fields, or of fields with nested types, is a long return type
    // (clippy's `type_complexity` scores ten or so plain fields over its limit); it is
    // spelled only here, never by the user, who chains the calls.
    let complex = (required.len() > 6 || set_types.iter().any(|t| t.to_string().contains('<')))
        .then(|| quote!(#[allow(clippy::type_complexity)]));
    let setters = required.iter().enumerate().map(|(i, f)| {
        let fname = &names[i];
        let (param, value) = argument(f);
        // Unboxed in the builder: `build` boxes.
        let value = if f.boxed {
            let name = ident(&f.name);
            match &f.ty {
                Ty::String => quote!(#name.into()),
                _ => quote!(#name),
            }
        } else {
            value
        };
        let free: Vec<&proc_macro2::Ident> = params
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, p)| p)
            .collect();
        let before = params
            .iter()
            .enumerate()
            .map(|(j, p)| if j == i { quote!(()) } else { quote!(#p) });
        let set_ty = &set_types[i];
        let after = params
            .iter()
            .enumerate()
            .map(|(j, p)| if j == i { quote!(#set_ty) } else { quote!(#p) });
        let moves = names.iter().enumerate().map(|(j, n)| {
            if j == i && *n == value.to_string() {
                // clippy's `redundant_field_names`
                quote!(#n)
            } else if j == i {
                quote!(#n: #value)
            } else {
                quote!(#n: self.#n)
            }
        });
        let sdoc = docs::outer(&format!("Sets `{}` (required).", f.wire));
        quote! {
            impl<#(#free),*> #builder<#(#before),*> {
                #sdoc
                #complex
                pub fn #fname(self, #fname: #param) -> #builder<#(#after),*> {
                    #builder { #(#moves),* }
                }
            }
        }
    });
    let inits = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        if let Some(i) = required.iter().position(|r| r.name == f.name) {
            let n = &names[i];
            if f.boxed {
                quote!(#fname: Box::new(self.#n))
            } else {
                quote!(#fname: self.#n)
            }
        } else if f.optional() {
            quote!(#fname: None)
        } else if f.default.is_some() {
            let dfn = ident(&format!("default_{}", f.name.trim_end_matches('_')));
            quote!(#fname: #model::#dfn())
        } else {
            quote!(#fname: Default::default())
        }
    });
    let start_doc = docs::outer(&format!(
        "A [`{builder_name}`]: set each required field by name ({}), then `build()`.",
        wires.join(", ")
    ));
    // A secret (`x-secret`) must not reach `Debug`.
    let derives = if required.iter().any(|f| f.secret) {
        quote!(#[derive(Clone)])
    } else {
        quote!(#[derive(Debug, Clone)])
    };
    let start = quote! {
        #start_doc
        pub fn builder() -> #builder {
            #builder { #(#names: #unset),* }
        }
    };
    let items = quote! {
        #doc
        #[must_use]
        #derives
        pub struct #builder<#(#params = ()),*> {
            #(#fields_doc #names: #params,)*
        }

        #(#setters)*

        impl #builder<#(#set_types),*> {
            /// The body, every required field set.
            pub fn build(self) -> #model {
                #model { #(#inits),* }
            }
        }
    };
    (start, items)
}

/// Whether `new` takes the field: a plain value with no default (an `Option`, a
/// defaulted or a flattened field starts out empty).
fn takes(f: &Field) -> bool {
    !f.optional() && !f.flatten && f.default.is_none()
}

/// The fields `new` takes, in order (also what the usage example passes it).
pub(super) fn required(s: &StructDef) -> Vec<&Field> {
    s.fields.iter().filter(|f| takes(f)).collect()
}

fn builders(s: &StructDef, taken: &std::collections::BTreeSet<&str>, print_setters: bool) -> Block {
    let required = required(s);
    // Several required fields of one type: a builder that takes each by name, and no
    // positional `new` that would let two be swapped.
    let (start, typestate) = swappable(&required)
        .then(|| typestate(s, &required, taken))
        .unzip();
    // With no required field the derived or written `Default` is the constructor.
    let new = (!required.is_empty() && typestate.is_none()).then(|| {
        let args: Vec<&str> = required.iter().map(|f| f.name.as_str()).collect();
        let doc = "A body with its required fields; set optional ones with the `with_…` methods.";
        constructor(s, "new", doc, &[], &args)
    });
    let named = s.constructors.iter().map(|c: &NamedConstructor| {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        constructor(s, &c.name, &c.doc, &c.fixed, &args)
    });
    let mut members: Vec<Member> = new
        .into_iter()
        .chain(start)
        .chain(named)
        .map(Member::Tokens)
        .collect();
    for f in s.fields.iter().filter(|f| f.optional()) {
        let fname = ident(&f.name);
        let stem = f.name.trim_end_matches('_');
        let setter = ident(&format!("with_{stem}"));
        let (param, value) = argument(f);
        let doc = format!("Sets `{}`.", f.wire);
        let set = if f.explicit_null() {
            quote!(Some(Some(#value)))
        } else {
            quote!(Some(#value))
        };
        let printed = print_setters
            .then(|| setter_text(&doc, &setter, &fname, &param, &set))
            .flatten();
        members.push(printed.map(Member::Text).unwrap_or_else(|| {
            let doc = docs::outer(&doc);
            Member::Tokens(quote! {
                #doc
                #[must_use]
                pub fn #setter(mut self, #fname: #param) -> Self {
                    self.#fname = #set;
                    self
                }
            })
        }));
        // `with_…_null` unless another field's setter has that name.
        let null_setter = f
            .explicit_null()
            .then(|| format!("{stem}_null"))
            .filter(|name| {
                !s.fields
                    .iter()
                    .any(|g| g.name.trim_end_matches('_') == name.as_str())
            });
        if let Some(name) = null_setter {
            let null_setter = ident(&format!("with_{name}"));
            let doc = format!(
                "Sends `{}` as an explicit `null` (the spec allows it), to clear the \
                 value; leaving the field unset sends nothing.",
                f.wire
            );
            let printed = print_setters
                .then(|| null_setter_text(&doc, &null_setter, &fname))
                .flatten();
            members.push(printed.map(Member::Text).unwrap_or_else(|| {
                let doc = docs::outer(&doc);
                Member::Tokens(quote! {
                    #doc
                    #[must_use]
                    pub fn #null_setter(mut self) -> Self {
                        self.#fname = Some(None);
                        self
                    }
                })
            }));
        }
    }
    let name = ident(&s.name);
    Block {
        header: quote!(impl #name),
        members,
        after: typestate.unwrap_or_default(),
    }
}

/// The longest line a setter is printed as text on: `prettyplease` breaks nothing that
/// fits in its margin of 89 columns, so a line well inside it is the line it prints.
const PLAIN_LINE: usize = 80;

/// A setter as `prettyplease` prints it in an `impl` block (unspaced, indented one level),
/// when every line of it is plain: its doc lines, `#[must_use]`, a signature and an
/// assignment that fit on one line each ([`PLAIN_LINE`]), and types and values made only
/// of paths, generic arguments and calls ([`plain_text`]); `None` otherwise, and the
/// setter is printed from its tokens. Setters are the most common member of a request
/// model (Prefect's spec has over a thousand), and printing this text straight saves
/// parsing and printing each one; the generator's tests compare the two (the parts put
/// together against the files printed whole).
fn setter_text(
    doc: &str,
    setter: &proc_macro2::Ident,
    field: &proc_macro2::Ident,
    param: &TokenStream,
    set: &TokenStream,
) -> Option<String> {
    let signature = format!(
        "    pub fn {setter}(mut self, {field}: {}) -> Self {{",
        plain_text(param)?
    );
    let assignment = format!("        self.{field} = {};", plain_text(set)?);
    setter_lines(doc, &signature, &assignment)
}

/// [`setter_text`] for a `with_…_null` setter.
fn null_setter_text(
    doc: &str,
    setter: &proc_macro2::Ident,
    field: &proc_macro2::Ident,
) -> Option<String> {
    let signature = format!("    pub fn {setter}(mut self) -> Self {{");
    let assignment = format!("        self.{field} = Some(None);");
    setter_lines(doc, &signature, &assignment)
}

/// A setter's printed lines around its signature and assignment (see [`setter_text`]).
fn setter_lines(doc: &str, signature: &str, assignment: &str) -> Option<String> {
    let plain = |line: &str| line.len() <= PLAIN_LINE && line.is_ascii();
    if !plain(signature) || !plain(assignment) {
        return None;
    }
    let mut text = String::with_capacity(doc.len() + signature.len() + assignment.len() + 64);
    // `prettyplease` prints a one-line doc attribute as `///` and its value, trailing
    // spaces trimmed; the values are the lines `docs::outer` makes (one that starts with
    // `/`, or holds a line break, prints otherwise: `prepare` makes none).
    for line in docs::prepare(doc) {
        if line.starts_with('/') || line.contains(['\n', '\r']) {
            return None;
        }
        text.push_str("    ///");
        text.push_str(line.trim_end_matches(' '));
        text.push('\n');
    }
    text.push_str("    #[must_use]\n");
    text.push_str(signature);
    text.push('\n');
    text.push_str(assignment);
    text.push_str("\n        self\n    }\n");
    Some(text)
}

/// The text `prettyplease` prints for a type or an expression made only of identifiers,
/// paths (`::`), generic arguments (`<`, `>`, `,`), method calls (`.`) and parenthesized
/// arguments: `impl Into<String>`, `std::collections::BTreeMap<String, String>`,
/// `Box::new(tag.into())`. `None` for any other token (a reference, a lifetime, a
/// literal, a bound) or a trailing comma, whose printing is left to `prettyplease`.
fn plain_text(tokens: &TokenStream) -> Option<String> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let mut text = String::new();
    let mut after_word = false;
    let mut trees = tokens.clone().into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Ident(i) => {
                if after_word {
                    text.push(' ');
                }
                text.push_str(&i.to_string());
                after_word = true;
                continue;
            }
            TokenTree::Punct(p) => match p.as_char() {
                ':' if p.spacing() == Spacing::Joint => match trees.next() {
                    Some(TokenTree::Punct(q)) if q.as_char() == ':' => text.push_str("::"),
                    _ => return None,
                },
                '<' | '>' | '.' if p.spacing() == Spacing::Alone || p.as_char() == '>' => {
                    text.push(p.as_char());
                }
                // A trailing comma (a one-element tuple's) prints otherwise.
                ',' if trees.peek().is_some() => text.push_str(", "),
                _ => return None,
            },
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                text.push('(');
                text.push_str(&plain_text(&g.stream())?);
                text.push(')');
            }
            _ => return None,
        }
        after_word = false;
    }
    Some(text)
}

/// One associated function that builds the struct: `fixed` fields get their value, `args`
/// are taken in order, every other field starts out unset (or at its default).
fn constructor(
    s: &StructDef,
    name: &str,
    doc: &str,
    fixed: &[(String, serde_json::Value)],
    args: &[&str],
) -> TokenStream {
    let fn_name = ident(name);
    let doc = docs::outer(doc);
    let params = args.iter().filter_map(|a| {
        let f = s.fields.iter().find(|f| f.name == *a)?;
        let (param, _) = argument(f);
        let a = ident(a);
        Some(quote!(#a: #param))
    });
    let inits = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        let value = if let Some((_, v)) = fixed.iter().find(|(n, _)| *n == f.name) {
            Some(literal(&f.ty, v))
        } else if args.contains(&f.name.as_str()) {
            Some(argument(f).1)
        } else {
            None
        };
        match (value, f.optional()) {
            (Some(v), true) if f.explicit_null() => quote!(#fname: Some(Some(#v))),
            (Some(v), true) => quote!(#fname: Some(#v)),
            // An argument passed through as it is: the shorthand (clippy's
            // `redundant_field_names`).
            (Some(v), false) if fname == v.to_string() => quote!(#fname),
            (Some(v), false) => quote!(#fname: #v),
            (None, true) => quote!(#fname: None),
            (None, false) => match &f.default {
                Some(_) => {
                    let dfn = ident(&format!("default_{}", f.name.trim_end_matches('_')));
                    quote!(#fname: Self::#dfn())
                }
                None => quote!(#fname: Default::default()),
            },
        }
    });
    let many = (args.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #doc
        #many
        pub fn #fn_name(#(#params),*) -> Self {
            Self { #(#inits),* }
        }
    }
}

/// A field's parameter type and the expression that turns the argument into the field's
/// value (without the `Option`): strings take `impl Into<String>`, boxed fields box.
fn argument(f: &Field) -> (TokenStream, TokenStream) {
    let name = ident(&f.name);
    let (param, mut value) = match &f.ty {
        Ty::String => (quote!(impl Into<String>), quote!(#name.into())),
        ty => (owned(ty, &TokenStream::new()), quote!(#name)),
    };
    if f.boxed {
        value = quote!(Box::new(#value));
    }
    (param, value)
}

/// A fixed value of `x-constructors` as an expression of the field's type (the lowering
/// checked that it fits).
fn literal(ty: &Ty, value: &serde_json::Value) -> TokenStream {
    match (ty, value) {
        (Ty::String, serde_json::Value::String(s)) => quote!(#s.to_owned()),
        (Ty::Bool, serde_json::Value::Bool(b)) => quote!(#b),
        (Ty::I32, serde_json::Value::Number(n)) => {
            let n = n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or_default();
            quote!(#n)
        }
        (Ty::I64, serde_json::Value::Number(n)) => {
            let n = n.as_i64().unwrap_or_default();
            quote!(#n)
        }
        (Ty::F32, serde_json::Value::Number(n)) => {
            #[allow(clippy::cast_possible_truncation)]
            let x = n.as_f64().unwrap_or_default() as f32;
            quote!(#x)
        }
        (_, serde_json::Value::Number(n)) => {
            let x = n.as_f64().unwrap_or_default();
            quote!(#x)
        }
        _ => quote!(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A setter printed as text is the text `prettyplease` prints for its tokens.
    #[test]
    fn a_plain_setter_prints_as_prettyplease_prints_it() {
        let cases = [
            (quote!(impl Into<String>), quote!(Some(Some(tag.into())))),
            // 80 columns: the longest signature printed as text.
            (
                quote!(BTreeMap<String, Vec<Option<i64>>>),
                quote!(Some(Box::new(tag))),
            ),
            (quote!(chrono::NaiveDate), quote!(Some(tag))),
        ];
        let (setter, field) = (ident("with_tag"), ident("tag"));
        for (param, set) in cases {
            let text = setter_text("Sets `tag`.", &setter, &field, &param, &set)
                .unwrap_or_else(|| panic!("{param:?} / {:?}", plain_text(&set)));
            let doc = docs::outer("Sets `tag`.");
            let tokens = quote! {
                impl X {
                    #doc
                    #[must_use]
                    pub fn #setter(mut self, #field: #param) -> Self {
                        self.#field = #set;
                        self
                    }
                }
            };
            let whole = prettyplease::unparse(&syn::parse2(tokens).unwrap());
            assert_eq!(format!("impl X {{\n{text}}}\n"), whole);
        }
        let null = null_setter_text("Sends `tag` as `null`.", &ident("with_tag_null"), &field);
        assert!(null.unwrap().contains("        self.tag = Some(None);\n"));
    }

    #[test]
    fn anything_but_paths_and_calls_is_left_to_prettyplease() {
        for tokens in [
            quote!(&'static str),
            quote!((i64,)),
            quote!([u8; 4]),
            quote!(Box<dyn Fn() + Send>),
            quote!(Some(1)),
        ] {
            assert_eq!(plain_text(&tokens), None, "{tokens}");
        }
        // A line past the margin is left too.
        let long =
            quote!(std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>);
        assert!(plain_text(&long).is_some());
        assert_eq!(
            setter_text("d", &ident("with_x"), &ident("x"), &long, &quote!(Some(x))),
            None
        );
    }
}
