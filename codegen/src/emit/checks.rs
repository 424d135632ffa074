//! Constraint checks (`maxLength`, `minimum`, `minItems`, `pattern`, ...) as statements
//! that return a `ConstraintViolation` from the enclosing function.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::ir::{Checks, LengthUnit, Ty};

/// The length of a string expression in `unit`, as `u64`.
pub fn length(value: &TokenStream, unit: LengthUnit) -> TokenStream {
    match unit {
        LengthUnit::Scalar => quote!(#value.chars().count() as u64),
        LengthUnit::Utf16 => quote!(#value.encode_utf16().count() as u64),
        LengthUnit::Byte => quote!(#value.len() as u64),
    }
}

/// Where a check sits: in a model's `validate()` (returns the violation) or in a client
/// method (returns it wrapped in `Error::Constraint`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// `fn validate(&self) -> Result<(), ConstraintViolation>`.
    Validate,
    /// A client method returning `Result<_, Error<E>>`.
    Client,
}

fn violation(context: Context, fields: &[&str], constraint: TokenStream) -> TokenStream {
    let value = quote! {
        crate::ConstraintViolation {
            fields: vec![#(#fields),*],
            constraint: crate::Constraint::#constraint,
        }
    };
    match context {
        Context::Validate => quote!(return Err(#value);),
        Context::Client => quote!(return Err(crate::Error::Constraint(#value));),
    }
}

/// Statements checking `value` (a string, number or list expression; numbers by value)
/// against `checks`; `wire` names it in the violation.
pub fn statements(
    context: Context,
    value: &TokenStream,
    ty: &Ty,
    checks: &Checks,
    wire: &str,
) -> TokenStream {
    let mut out = TokenStream::new();
    let unit = checks.unit.unwrap_or(LengthUnit::Scalar);
    if checks.min_length.is_some() || checks.max_length.is_some() {
        let len = length(value, unit);
        out.extend(quote!(let length = #len;));
        if let Some(min) = checks.min_length {
            let fail = violation(
                context,
                &[wire],
                quote!(MinLength { min: #min, actual: length }),
            );
            out.extend(quote!(if length < #min { #fail }));
        }
        if let Some(max) = checks.max_length {
            let fail = violation(
                context,
                &[wire],
                quote!(MaxLength { max: #max, actual: length }),
            );
            out.extend(quote!(if length > #max { #fail }));
        }
    }
    let as_f64 = match ty {
        Ty::I32 | Ty::F32 => quote!(f64::from(#value)),
        Ty::F64 => quote!(#value),
        _ => quote!((#value as f64)),
    };
    let compare = |limit: f64, less: bool| -> TokenStream {
        let op = if less { quote!(<) } else { quote!(>) };
        let integral = limit.fract() == 0.0 && limit.abs() < 9.0e15;
        let int_lit = match ty {
            Ty::I64 if integral => Some(Literal::i64_suffixed(limit as i64)),
            Ty::I32 if integral => i32::try_from(limit as i64).ok().map(Literal::i32_suffixed),
            _ => None,
        };
        match int_lit {
            Some(lit) => quote!(#value #op #lit),
            None => {
                let lit = Literal::f64_suffixed(limit);
                quote!(#as_f64 #op #lit)
            }
        }
    };
    if let Some(min) = checks.minimum {
        let cond = compare(min, true);
        let lit = Literal::f64_suffixed(min);
        let fail = violation(
            context,
            &[wire],
            quote!(Minimum { min: #lit, actual: #as_f64 }),
        );
        out.extend(quote!(if #cond { #fail }));
    }
    if let Some(max) = checks.maximum {
        let cond = compare(max, false);
        let lit = Literal::f64_suffixed(max);
        let fail = violation(
            context,
            &[wire],
            quote!(Maximum { max: #lit, actual: #as_f64 }),
        );
        out.extend(quote!(if #cond { #fail }));
    }
    if let Some(min) = checks.min_items {
        let fail = violation(
            context,
            &[wire],
            quote!(MinItems { min: #min, actual: #value.len() as u64 }),
        );
        out.extend(quote!(if (#value.len() as u64) < #min { #fail }));
    }
    if let Some(max) = checks.max_items {
        let fail = violation(
            context,
            &[wire],
            quote!(MaxItems { max: #max, actual: #value.len() as u64 }),
        );
        out.extend(quote!(if (#value.len() as u64) > #max { #fail }));
    }
    if let Some(pattern) = &checks.pattern {
        let fail = violation(context, &[wire], quote!(Pattern { pattern: #pattern }));
        // Compiled once, on the first check; the generator made sure `regex` reads it.
        out.extend(quote! {
            static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(#pattern).expect("the generator checked that `regex` reads this pattern")
            });
            if !PATTERN.is_match(#value) { #fail }
        });
    }
    if out.is_empty() {
        return out;
    }
    quote!({ #out })
}

/// The statement for a combined length rule over several (optional) string fields.
pub fn combined(
    parts: &[(TokenStream, bool)],
    wires: &[&str],
    max: u64,
    unit: LengthUnit,
) -> TokenStream {
    let terms = parts.iter().map(|(value, optional)| {
        if *optional {
            let v = quote!(v);
            let len = length(&v, unit);
            quote!(#value.as_deref().map_or(0, |v| #len))
        } else {
            length(value, unit)
        }
    });
    let fail = violation(
        Context::Validate,
        wires,
        quote!(CombinedMaxLength { max: #max, actual: total }),
    );
    quote! {
        {
            let total: u64 = #( #terms )+*;
            if total > #max { #fail }
        }
    }
}
