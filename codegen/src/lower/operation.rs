//! Operations to client methods: parameters, bodies, responses and authentication.

use super::Lowerer;
use super::status::reason;
use crate::error::{Located, push_pointer};
use crate::ir::{
    Body, BodyKind, HeaderEncoding, ListEncoding, Method, ObjectStyle, Operation, Param,
    ParamLocation, PathPart, Payload, ResponseDef, ResponseHeader, SecurityScheme, StatusMatch, Ty,
};
use crate::names::{CLIENT_METHODS, Scope, pascal, snake};
use crate::warning::WarningKind;
use spec_model::Level;
use spec_model::model::{self as spec, Parameter, RequestBody, Text};
use spec_model::refs;

/// The `Accept` header parameter with its pointer: negotiation makes methods of it.
type AcceptParam = (Parameter, String);

/// A request body after the first, with the name of the method that sends it.
type OtherBody = (String, Body);

impl Lowerer<'_> {
    /// Every operation of every path, in spec order, and the security schemes they send.
    pub(super) fn operations(&mut self) -> Result<(Vec<Operation>, Vec<SecurityScheme>), Located> {
        let mut method_names = Scope::default();
        // The client's own methods first: an operation named like one takes a suffix.
        for taken in CLIENT_METHODS {
            method_names.claim((*taken).to_owned());
        }
        let mut prefixes = Scope::default();
        // operationId → where it was first seen: a duplicate breaks OpenAPI's rule, but
        // refusing the document would stop its user at the first of possibly several
        // (one per run); the operation keeps its place, numbered by `method_names`, and a
        // warning names both places and the method it got.
        let mut ids: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
        let mut out = Vec::new();
        // operationId → client method, for extensions that name an operation.
        let mut methods_by_id: Vec<(String, String)> = Vec::new();
        let spec = self.spec;
        for (path, item) in &spec.paths {
            let mut item_ptr = push_pointer("/paths", path);
            // Where a path item given by `$ref` says so: its repeated operationIds are
            // named there, not at the operations it repeats.
            let reference_at = item
                .reference
                .as_ref()
                .map(|_| push_pointer(&item_ptr, "$ref"));
            let item = match &item.reference {
                None => item,
                // Another entry of `paths`: the same operations under a second path (their
                // operationIds repeat, and the second of each is numbered as any repeat).
                Some(reference) => match refs::path_item(spec, reference) {
                    Some((target, item)) => {
                        item_ptr = push_pointer("/paths", target);
                        item
                    }
                    None => {
                        self.warn(
                            WarningKind::OperationLeftOut,
                            push_pointer(&item_ptr, "$ref"),
                            format!(
                                "path `{path}` is left out of the client: its `$ref` names no \
                                 other entry of `paths` (the path items read by reference)"
                            ),
                        );
                        self.left_out
                            .push(format!("every operation of {path} (a $ref path item)"));
                        continue;
                    }
                },
            };
            // Path-level prose documents no method; only checked, so a wrong type warns.
            for (field, value) in [
                ("summary", &item.summary),
                ("description", &item.description),
            ] {
                let _ = self.text(value.as_ref(), &push_pointer(&item_ptr, field));
            }
            for (method, op) in item.operations() {
                let ptr = push_pointer(&item_ptr, method);
                let mut duplicate = None;
                if let Some(id) = op
                    .operation_id
                    .as_deref()
                    .filter(|id| !id.trim().is_empty())
                {
                    let here =
                        (reference_at.clone()).unwrap_or_else(|| push_pointer(&ptr, "operationId"));
                    match ids.get(id) {
                        Some(first) => duplicate = Some((id, here, first.clone())),
                        None => {
                            ids.insert(id, here);
                        }
                    }
                }
                match self.operation(
                    path,
                    method,
                    op,
                    item,
                    &ptr,
                    &mut method_names,
                    &mut prefixes,
                ) {
                    Ok(lowered) => {
                        if let Some((id, here, first)) = duplicate {
                            self.warn(
                                WarningKind::DuplicateOperationId,
                                here,
                                format!(
                                    "operationId `{id}` is already used at {first} \
                                     (operationIds must be unique); this operation's \
                                     method is `{}`",
                                    lowered.name
                                ),
                            );
                        } else if let Some(id) = &op.operation_id {
                            // An extension naming a duplicated id means its first use.
                            methods_by_id.push((id.clone(), lowered.name.clone()));
                        }
                        out.push(lowered);
                    }
                    Err(Problem::Refuse(located)) => return Err(located),
                    Err(Problem::Skip(located)) => {
                        if let Some((id, here, first)) = duplicate {
                            self.warn(
                                WarningKind::DuplicateOperationId,
                                here,
                                format!(
                                    "operationId `{id}` is already used at {first} \
                                     (operationIds must be unique)"
                                ),
                            );
                        }
                        let message = format!(
                            "operation `{method} {path}` is left out of the client: {}",
                            located.message
                        );
                        self.warn(WarningKind::OperationLeftOut, located.pointer, message);
                        let verb = method.to_ascii_uppercase();
                        self.left_out.push(match op.operation_id.as_deref() {
                            Some(id) if !id.trim().is_empty() => format!("{id} ({verb} {path})"),
                            _ => format!("{verb} {path}"),
                        });
                    }
                }
            }
        }
        // Only the schemes an operation of the client sends: an accessor for any other
        // would set a credential that is never sent.
        let mut used = Vec::new();
        for key in out.iter().flat_map(|op| op.security.iter().flatten()) {
            if !used.contains(key) {
                used.push(key.clone());
            }
        }
        let schemes = self.schemes(&used, &mut method_names, &out, &methods_by_id)?;
        Ok((out, schemes))
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        path: &str,
        method: &str,
        op: &spec::Operation,
        item: &spec::PathItem,
        ptr: &str,
        method_names: &mut Scope,
        prefixes: &mut Scope,
    ) -> Result<Operation, Problem> {
        let id = match &op.operation_id {
            Some(id) if !id.trim().is_empty() => id.clone(),
            _ => format!("{method} {path}"),
        };
        let name = method_names.claim(snake(&id));
        let type_prefix = prefixes.claim(pascal(&id));
        let mut security = self.requirements(op, ptr)?;
        let mut raw = self.merged_parameters(op, item, ptr)?;
        self.undeclared_path_parameters(path, &mut raw);
        let (params, accept_param) = self.params(path, &raw, &type_prefix, &mut security)?;

        // A template naming an undeclared parameter (or malformed) cannot be called
        // correctly; the other operations can.
        let path_parts =
            split_path(path, &params, &push_pointer("/paths", path)).map_err(Problem::Skip)?;
        let (body, other_bodies) =
            self.operation_bodies(op, ptr, &type_prefix, &name, method_names)?;
        let mut responses = self.responses(op, ptr, &type_prefix)?;
        for r in responses.iter_mut().filter(|r| !r.headers.is_empty()) {
            r.headers_type = prefixes.claim(format!("{type_prefix}{}Headers", r.variant));
        }
        let negotiated = self.negotiation(&responses, accept_param, &name, method_names);
        let business = self.business_fields(op, ptr, &responses);
        let stream = responses
            .iter()
            .any(|r| r.status.is_success() && matches!(r.payload, Payload::Text | Payload::Bytes))
            .then(|| method_names.claim(format!("{name}_stream")));

        let responses = with_undeclared_success(responses);
        let doc = self.operation_doc(op, ptr);
        Ok(Operation {
            name,
            type_prefix,
            doc,
            method: parse_method(method),
            path: path_parts,
            path_template: path.to_owned(),
            params,
            body,
            other_bodies,
            stream,
            negotiated,
            security,
            responses,
            deprecated: op.deprecated,
            business,
            penalty: op.penalty.as_ref().map(|p| crate::ir::PenaltyShape {
                ticket: p.ticket.clone(),
                wait: p.wait.clone(),
                captcha: p.captcha.clone(),
                resend: p.resend.clone(),
            }),
        })
    }

    /// The operation's parameters with their pointers: the path item's apply to every
    /// operation under it unless the operation declares one of the same name and place.
    fn merged_parameters(
        &self,
        op: &spec::Operation,
        item: &spec::PathItem,
        ptr: &str,
    ) -> Result<Vec<(Parameter, String)>, Problem> {
        // Path-level parameters first, replaced by operation-level ones of the same key.
        let mut raw: Vec<(Parameter, String)> = Vec::new();
        for (i, p) in item.parameters.iter().enumerate() {
            let p_ptr = format!(
                "{}/parameters/{i}",
                ptr.rsplit_once('/').map_or(ptr, |(a, _)| a)
            );
            raw.push(self.resolve_parameter(p, &p_ptr)?);
        }
        for (i, p) in op.parameters.iter().enumerate() {
            let resolved = self.resolve_parameter(p, &format!("{ptr}/parameters/{i}"))?;
            raw.retain(|(q, _)| !(q.name == resolved.0.name && q.location == resolved.0.location));
            raw.push(resolved);
        }
        Ok(raw)
    }

    /// A `{name}` of the path template that no parameter declares (a spec error servers
    /// still answer to) becomes a required string parameter, with a warning: what
    /// OpenAPI says every path parameter is at least, and the value the caller means goes
    /// where the template puts it.
    fn undeclared_path_parameters(&mut self, path: &str, raw: &mut Vec<(Parameter, String)>) {
        let at = push_pointer("/paths", path);
        let mut rest = path;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                return; // Malformed: `split_path` says so.
            };
            let wire = rest[open + 1..close].to_owned();
            rest = &rest[close + 1..];
            let declared = raw.iter().any(|(p, _)| {
                p.location.as_deref() == Some("path") && p.name.as_deref() == Some(wire.as_str())
            });
            if declared || wire.is_empty() {
                continue;
            }
            self.warn(
                WarningKind::UndeclaredPathParameter,
                at.clone(),
                format!(
                    "path parameter `{wire}` of the template is not declared: it is taken as \
                     a required string"
                ),
            );
            let parameter = Parameter {
                name: Some(wire),
                location: Some("path".to_owned()),
                required: true,
                schema: Some(spec::Schema {
                    kind: Some(spec::SchemaType::One("string".to_owned())),
                    ..spec::Schema::default()
                }),
                ..Parameter::default()
            };
            raw.push((parameter, at.clone()));
        }
    }

    /// The method's arguments, and the `Accept` header parameter if there is one (which
    /// is no argument: negotiation makes methods of it). An `Authorization` header that
    /// spells the bearer scheme sets `security` instead, when nothing else does.
    fn params(
        &mut self,
        path: &str,
        raw: &[(Parameter, String)],
        type_prefix: &str,
        security: &mut Vec<Vec<String>>,
    ) -> Result<(Vec<Param>, Option<AcceptParam>), Problem> {
        let bearer = self.bearer_scheme();
        let mut arg_names = Scope::default();
        // The generated method's own locals: an argument of that name gets a suffix.
        for local in METHOD_LOCALS {
            arg_names.claim((*local).to_owned());
        }
        let mut params = Vec::new();
        let mut accept_param: Option<(Parameter, String)> = None;
        for (p, p_ptr) in raw {
            let wire = p.name.clone().unwrap_or_default();
            let Some(location) = param_location(
                p,
                p_ptr,
                &wire,
                bearer.as_ref(),
                security,
                &mut accept_param,
            )?
            else {
                continue;
            };
            if location == ParamLocation::Path && !path.contains(&format!("{{{wire}}}")) {
                // Nowhere to put its value: an argument would be taken and dropped.
                self.warn(
                    WarningKind::StrayPathParameter,
                    p_ptr.clone(),
                    format!(
                        "path parameter `{wire}` does not appear in the path template \
                         `{path}`; it is left out of the method"
                    ),
                );
                continue;
            }
            let param = match &p.content {
                Some(content) => {
                    self.content_param(p, content, location, &wire, p_ptr, type_prefix)?
                }
                None => self.schema_param(p, p_ptr, wire.clone(), location, type_prefix)?,
            };
            params.push(Param {
                // `x-rust-name` names the argument for what it means; the wire keeps `wire`.
                name: arg_names.claim(snake(
                    p.rust_name.as_ref().map_or(wire.as_str(), |n| n.0.as_str()),
                )),
                ..param
            });
        }
        Ok((params, accept_param))
    }

    /// A parameter described by `schema`, refused when its type has no text form where it
    /// travels; its Rust name is left for the caller to claim.
    fn schema_param(
        &mut self,
        p: &Parameter,
        p_ptr: &str,
        wire: String,
        location: ParamLocation,
        type_prefix: &str,
    ) -> Result<Param, Problem> {
        let mut schema = p.schema.clone().unwrap_or_default();
        if super::schema::is_any(&schema) {
            // No `type` (Pydantic writes `{title: Dag Id}` for a `str` path value):
            // whatever the value, a path segment, query value, header or cookie is
            // text on the wire, so the argument is a string, not untyped JSON.
            schema.kind = Some(spec::SchemaType::One("string".to_owned()));
        }
        let hint = format!("{type_prefix}{}", pascal(&wire));
        let (ty, _nullable) = self.ty(&schema, &push_pointer(p_ptr, "schema"), &hint)?;
        let typed = ty.clone();
        let ty = self.date_times_as_strings(ty);
        let date_time_text = ty != typed;
        // An object (a struct or a map) has OpenAPI's `form` and `deepObject`
        // encodings in the query and RFC 6570's in a path or header; a cookie, and any
        // JSON, has none.
        let object = matches!(ty, Ty::Map(_)) || matches!(&ty, Ty::Named(n) if self.is_object(n));
        if object && location == ParamLocation::Cookie {
            return Err(Problem::skip(
                push_pointer(p_ptr, "schema"),
                format!(
                    "parameter `{wire}` is an object in a cookie, which has no encoding \
                     there; only scalars and lists of scalars are supported"
                ),
            ));
        }
        if matches!(ty, Ty::Json | Ty::Option(_) | Ty::Unit) {
            let what = match ty {
                Ty::Unit => "a value that can only be `null`",
                Ty::Option(_) => "a value that may be `null`",
                _ => {
                    "JSON of no single type (a `type: null` schema, or a union that \
                      admits any JSON)"
                }
            };
            return Err(Problem::skip(
                push_pointer(p_ptr, "schema"),
                format!(
                    "parameter `{wire}` is {what}, which has no text form in the {}",
                    location_word(location)
                ),
            ));
        }
        if matches!(ty, Ty::Tuple(_)) {
            return Err(Problem::skip(
                push_pointer(p_ptr, "schema"),
                format!(
                    "parameter `{wire}` is a tuple (`prefixItems`), which has no text form \
                     in the {} this client knows",
                    location_word(location)
                ),
            ));
        }
        if let Ty::Vec(item) = &ty {
            let scalar = self.is_scalar_item(item);
            if !scalar && location != ParamLocation::Query {
                return Err(Problem::skip(
                    push_pointer(p_ptr, "schema"),
                    format!(
                        "parameter `{wire}` is a list of non-scalars, which has no encoding \
                         in the {}",
                        location_word(location)
                    ),
                ));
            }
        }
        // A list of objects (or lists) in the query has no encoding in OpenAPI, whatever
        // its style (`form` would repeat the name with nothing to say which property a
        // value is; `deepObject` is defined for one object): it goes as one JSON text,
        // the one form every server can read back whole.
        let structured_list = matches!(&ty, Ty::Vec(item) if !self.is_scalar_item(item));
        let list = if structured_list {
            self.warn(
                WarningKind::QueryJsonList,
                push_pointer(p_ptr, "schema"),
                format!(
                    "parameter `{wire}` is a list of objects (or lists) in the query, for \
                     which OpenAPI defines no encoding; the client sends it as one JSON text \
                     (`{wire}=[{{…}}]`)"
                ),
            );
            ListEncoding::JsonText
        } else {
            list_encoding(p, location, object, p_ptr).map_err(Problem::Skip)?
        };
        // `deepObject` is defined for objects; a list has a convention (below), and
        // anything else (a union that may be an object, a scalar) goes as its value is:
        // an object as `name[key]=value` pairs, a scalar as `name=value`.
        let list = if list == ListEncoding::DeepList && !matches!(ty, Ty::Vec(_)) {
            self.warn(
                WarningKind::DeepObjectValue,
                push_pointer(p_ptr, "style"),
                format!(
                    "parameter `{wire}` is in `deepObject` style but is not an object (a \
                     union, or a scalar), and OpenAPI defines no encoding for it; the client \
                     sends an object value as `{wire}[key]=value` pairs and any other as \
                     `{wire}=value`"
                ),
            );
            ListEncoding::DeepObject
        } else {
            list
        };
        if list == ListEncoding::DeepList {
            self.warn(
                WarningKind::DeepObjectList,
                push_pointer(p_ptr, "style"),
                format!(
                    "parameter `{wire}` is a list in `deepObject` style, which OpenAPI defines \
                     for objects only; the client sends each item as `{wire}[]=item`"
                ),
            );
        }
        let checks = self.checks(&schema, &ty, &push_pointer(p_ptr, "schema"));
        let mut doc = self.param_doc(p, p_ptr, &wire, date_time_text, &list);
        if list == ListEncoding::DeepObject && !object {
            doc.push_str(&format!(
                " A value that is not an object goes as `{wire}=value`."
            ));
        }
        Ok(Param {
            name: String::new(),
            wire,
            doc,
            location,
            ty,
            required: p.required || location == ParamLocation::Path,
            list,
            checks,
            schema: p.schema.is_some().then(|| push_pointer(p_ptr, "schema")),
        })
    }

    /// A schema parameter's rustdoc: the spec's description (or a stand-in), then what
    /// the caller cannot see from the type: date-times kept as text, how an object is
    /// spelled on the wire, and the other encodings servers accept.
    fn param_doc(
        &mut self,
        p: &Parameter,
        p_ptr: &str,
        wire: &str,
        date_time_text: bool,
        list: &ListEncoding,
    ) -> String {
        let mut doc = self
            .text(p.description.as_ref(), &push_pointer(p_ptr, "description"))
            .unwrap_or_default();
        if doc.is_empty() {
            doc = format!("The `{wire}` parameter.");
        }
        if date_time_text {
            doc.push_str(" A date-time as text (RFC 3339, `format: date-time`), sent as given.");
        }
        match list {
            ListEncoding::ObjectForm { explode: true } => doc.push_str(
                " Sent as one `key=value` pair per property (`form`, exploded); unset \
                 fields are left out.",
            ),
            ListEncoding::ObjectForm { explode: false } => doc.push_str(&format!(
                " Sent as `{wire}=key,value,…` (`form`, not exploded); unset fields are \
                 left out."
            )),
            ListEncoding::DeepObject => doc.push_str(&format!(
                " Sent as `{wire}[key]=value` pairs (`deepObject`); unset fields are left \
                 out."
            )),
            ListEncoding::JsonText => doc.push_str(&format!(
                " Sent as one JSON text, `{wire}=[…]` (OpenAPI defines no encoding for a \
                 list of objects in the query)."
            )),
            ListEncoding::DeepList => doc.push_str(&format!(
                " Sent as `{wire}[]=item` for each item (`deepObject`, which OpenAPI \
                 defines for objects only)."
            )),
            ListEncoding::ObjectStyled { style, explode } => {
                let shape = match (style, explode) {
                    (ObjectStyle::Simple, false) => "key,value,key,value".to_owned(),
                    (ObjectStyle::Simple, true) => "key=value,key=value".to_owned(),
                    (ObjectStyle::Label, false) => ".key,value,key,value".to_owned(),
                    (ObjectStyle::Label, true) => ".key=value.key=value".to_owned(),
                    (ObjectStyle::Matrix, false) => format!(";{wire}=key,value,key,value"),
                    (ObjectStyle::Matrix, true) => ";key=value;key=value".to_owned(),
                };
                doc.push_str(&format!(
                    " Sent as `{shape}` (`{}`, explode {explode}); unset fields are left out.",
                    match style {
                        ObjectStyle::Simple => "simple",
                        ObjectStyle::Label => "label",
                        ObjectStyle::Matrix => "matrix",
                    }
                ));
            }
            _ => {}
        }
        for alt in &p.alternate_encodings {
            let style = alt.style.as_deref().unwrap_or("form");
            let explode = alt.explode.unwrap_or(style == "form");
            doc.push_str(&format!(
                " Servers also accept `style: {style}, explode: {explode}`{}.",
                level_note(alt.level.map(Level::as_str), alt.decision.as_ref())
            ));
        }
        doc
    }

    /// The request bodies: the first is the method's own, each other one gets a method
    /// named after its kind (or, for a second of the same kind, its media type).
    fn operation_bodies(
        &mut self,
        op: &spec::Operation,
        ptr: &str,
        type_prefix: &str,
        name: &str,
        method_names: &mut Scope,
    ) -> Result<(Option<Body>, Vec<OtherBody>), Problem> {
        let mut bodies = match &op.request_body {
            Some(b) => {
                let b_ptr = push_pointer(ptr, "requestBody");
                self.bodies(b, &b_ptr, type_prefix)?
            }
            None => Vec::new(),
        }
        .into_iter();
        let body = bodies.next();
        let mut suffixes = Scope::default();
        if let Some(b) = &body {
            suffixes.claim(kind_suffix(b.kind).to_owned());
        }
        let other_bodies = bodies
            .map(|b| {
                let mut suffix = suffixes.claim(kind_suffix(b.kind).to_owned());
                if suffix != kind_suffix(b.kind) {
                    // A second body of the same kind: named after its media type.
                    let essence = essence(&b.media);
                    let subtype = essence
                        .rsplit_once('/')
                        .map_or(essence.as_str(), |(_, s)| s);
                    suffix = suffixes.claim(snake(subtype));
                }
                (method_names.claim(format!("{name}_{suffix}")), b)
            })
            .collect();
        Ok((body, other_bodies))
    }

    /// The method's rustdoc from the summary and description, warning on the way about
    /// what the operation lacks (responses) or repeats (tags).
    fn operation_doc(&mut self, op: &spec::Operation, ptr: &str) -> String {
        let mut doc = String::new();
        if let Some(s) = self.text(op.summary.as_ref(), &push_pointer(ptr, "summary")) {
            doc.push_str(&s);
        }
        if let Some(d) = self.text(op.description.as_ref(), &push_pointer(ptr, "description")) {
            if !doc.is_empty() {
                doc.push_str("\n\n");
            }
            doc.push_str(&d);
        }
        if op.responses.is_empty() {
            self.warn(
                WarningKind::NoResponses,
                push_pointer(ptr, "responses"),
                "no responses are documented; a `2xx` is a success whose body is kept as \
                 received, any other status an undocumented one",
            );
        }
        let mut seen_tags = Vec::new();
        for (i, tag) in op.tags.iter().enumerate() {
            if seen_tags.contains(&tag) {
                self.warn(
                    WarningKind::DuplicateTag,
                    format!("{}/{i}", push_pointer(ptr, "tags")),
                    format!("tag {tag} is listed twice"),
                );
            }
            seen_tags.push(tag);
        }
        if doc.is_empty() {
            // The method and path follow in the emitted doc; saying them twice helps no one.
            doc = "The spec gives this operation no summary or description.".to_owned();
        }
        doc
    }

    /// A parameter described by `content` (one media type and its schema) rather than
    /// `schema`: FastAPI applications send filters this way, as JSON text in the query
    /// string. Any JSON type is then fine, objects and untyped values included; its Rust
    /// name is left for the caller to claim.
    fn content_param(
        &mut self,
        p: &Parameter,
        content: &serde_json::Value,
        location: ParamLocation,
        wire: &str,
        p_ptr: &str,
        type_prefix: &str,
    ) -> Result<Param, Problem> {
        let content_ptr = push_pointer(p_ptr, "content");
        // The spec reader keeps a parameter's `content` as it came; read here as the
        // media types a body's `content` holds.
        let content: indexmap::IndexMap<String, spec::MediaType> =
            serde_json::from_value(content.clone()).map_err(|e| {
                Problem::skip(
                    content_ptr.clone(),
                    format!("parameter `{wire}`: `content` is not a map of media types: {e}"),
                )
            })?;
        let [(media, media_type)] = content.iter().collect::<Vec<_>>()[..] else {
            return Err(Problem::skip(
                content_ptr,
                format!(
                    "parameter `{wire}` lists {} media types under `content`, where OpenAPI \
                     allows exactly one",
                    content.len()
                ),
            ));
        };
        let media_ptr = push_pointer(&content_ptr, media);
        let essence = media
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !is_json(media) && (essence == "*/*" || essence.starts_with("text/")) {
            // Any media type, or text: the value as text, which is what a parameter
            // described by `schema` sends; so it is lowered as one.
            self.warn(
                WarningKind::UnsupportedMediaType,
                &media_ptr,
                format!(
                    "parameter `{wire}` is described as `{media}`: its value is sent as plain \
                     text, as a parameter described by `schema` is"
                ),
            );
            let plain = Parameter {
                content: None,
                schema: media_type.schema.clone(),
                ..p.clone()
            };
            return self.schema_param(&plain, &media_ptr, wire.to_owned(), location, type_prefix);
        }
        if !is_json(media) {
            return Err(Problem::skip(
                media_ptr,
                format!(
                    "parameter `{wire}` is described as `{media}`; only JSON (`application/json` \
                     or `+json`) is supported for a parameter's `content`"
                ),
            ));
        }
        // JSON text in a cookie would need its `;`, `,` and quotes encoded by a rule
        // RFC 6265 does not give; the query, a path segment (percent-encoded) and a
        // header (as it is) carry it.
        if location == ParamLocation::Cookie {
            return Err(Problem::skip(
                content_ptr,
                format!(
                    "parameter `{wire}` is JSON text in a cookie, which has no encoding \
                     for it; query, path and header parameters described by `content` are \
                     supported"
                ),
            ));
        }
        let schema_ptr = push_pointer(&media_ptr, "schema");
        let (ty, _) = match &media_type.schema {
            Some(schema) => {
                let hint = format!("{type_prefix}{}", pascal(wire));
                self.ty(schema, &schema_ptr, &hint)?
            }
            None => {
                self.warn(
                    WarningKind::UntypedSchema,
                    &media_ptr,
                    format!(
                        "parameter `{wire}` has no `schema` (any JSON value): its argument is \
                         `serde_json::Value`"
                    ),
                );
                (Ty::Json, false)
            }
        };
        let checks = match &media_type.schema {
            Some(schema) => self.checks(schema, &ty, &push_pointer(&media_ptr, "schema")),
            None => crate::ir::Checks::default(),
        };
        let mut doc = self
            .text(p.description.as_ref(), &push_pointer(p_ptr, "description"))
            .unwrap_or_default();
        if doc.is_empty() {
            doc = format!("The `{wire}` parameter.");
        }
        doc.push_str(&format!(
            " Sent as JSON text (`{media}`) {}.",
            match location {
                ParamLocation::Path => "in the path, percent-encoded",
                ParamLocation::Header => "as the header's value",
                _ => "in the query string",
            }
        ));
        Ok(Param {
            name: String::new(),
            wire: wire.to_owned(),
            doc,
            location,
            ty,
            required: p.required,
            list: ListEncoding::JsonText,
            checks,
            schema: media_type.schema.is_some().then_some(schema_ptr),
        })
    }

    /// The twins of content negotiation: a success answer documented in media types of
    /// another kind than the one its payload is read as (JSON beside `text/plain`, say)
    /// gets a method per other kind that asks for those types and returns the body as
    /// text (`text/*`, and JSON read as text) or bytes (anything else). The values an
    /// `accept` header parameter's `enum` lists count as media types of the successes: a
    /// value the responses do not list is still a choice the server offers. Wildcards
    /// (`*/*`, `text/*`) name no choice and make no twin. An `accept` parameter whose
    /// choices no method covers (a free value, where every success has one kind) is a
    /// warning: the client's own `Accept` stands in for it.
    fn negotiation(
        &mut self,
        responses: &[ResponseDef],
        accept_param: Option<(Parameter, String)>,
        name: &str,
        method_names: &mut Scope,
    ) -> Vec<crate::ir::Negotiated> {
        let successes: Vec<&ResponseDef> =
            responses.iter().filter(|r| r.status.is_success()).collect();
        let read_as = |r: &ResponseDef| match r.payload {
            Payload::Json(_) => Some(MediaKind::Json),
            Payload::Text => Some(MediaKind::Text),
            Payload::Bytes => Some(MediaKind::Bytes),
            Payload::None => None,
        };
        // Media types the main method's payloads do not read, in spec order.
        let mut offered: Vec<String> = Vec::new();
        let add = |offered: &mut Vec<String>, media: &str| {
            if !offered.iter().any(|m| m.eq_ignore_ascii_case(media)) {
                offered.push(media.to_owned());
            }
        };
        for r in &successes {
            for media in &r.media {
                if media_kind(media).is_some_and(|kind| Some(kind) != read_as(r)) {
                    add(&mut offered, media);
                }
            }
        }
        let mut free_accept = None;
        if let Some((p, p_ptr)) = &accept_param {
            // `enum`, or a `const` (one value).
            let values: Vec<&str> = p
                .schema
                .iter()
                .flat_map(|s| s.enumeration.iter().flatten().chain(&s.constant))
                .filter_map(|v| v.as_str())
                .collect();
            if values.is_empty() {
                free_accept = Some(p_ptr.clone());
            }
            let main: Vec<(&str, Option<MediaKind>)> = successes
                .iter()
                .flat_map(|r| r.media.iter().map(move |m| (m.as_str(), read_as(r))))
                .collect();
            for value in values {
                let Some(kind) = media_kind(value) else {
                    continue;
                };
                // A value the main method already asks for (a JSON type beside a JSON
                // payload) needs no twin.
                let listed = main
                    .iter()
                    .any(|(m, read)| m.eq_ignore_ascii_case(value) && *read == Some(kind));
                let main_reads = successes.iter().any(|r| read_as(r) == Some(kind));
                if !(listed || (main_reads && kind == MediaKind::Json)) {
                    add(&mut offered, value);
                }
            }
        }
        // One twin per kind; several types of one kind get a twin each, named by subtype.
        let mut twins = Vec::new();
        for payload in [Payload::Text, Payload::Bytes] {
            let media: Vec<&String> = offered
                .iter()
                .filter(|m| twin_payload(m) == payload)
                .collect();
            let kind_suffix = if payload == Payload::Text {
                "text"
            } else {
                "bytes"
            };
            for m in &media {
                let suffix = if media.len() == 1 {
                    kind_suffix.to_owned()
                } else {
                    let essence = essence(m);
                    let subtype = essence
                        .rsplit_once('/')
                        .map_or(essence.as_str(), |(_, s)| s);
                    snake(subtype)
                };
                twins.push(crate::ir::Negotiated {
                    name: method_names.claim(format!("{name}_{suffix}")),
                    payload: payload.clone(),
                    media: vec![(*m).clone()],
                });
            }
        }
        if let Some(p_ptr) = free_accept.filter(|_| twins.is_empty()) {
            let mut media: Vec<&str> = Vec::new();
            for m in responses.iter().flat_map(|r| &r.media) {
                if !media.iter().any(|s| s.eq_ignore_ascii_case(m)) {
                    media.push(m);
                }
            }
            let sent = if media.is_empty() {
                "no `Accept` (the spec documents no media type)".to_owned()
            } else {
                format!("`Accept: {}`", media.join(", "))
            };
            self.warn(
                WarningKind::AcceptParameter,
                p_ptr,
                format!(
                    "header parameter `accept` takes any value and every success comes in one \
                     kind of media type, so it is not an argument: the client sends {sent}; \
                     `Client::with_header` sends another value"
                ),
            );
        }
        twins
    }

    /// A parameter's type with its date-times as `String`s: a path segment, header,
    /// cookie or joined list is written with `Display`, and chrono's is not RFC 3339
    /// (`2024-01-01 00:00:00 +00:00`); which RFC 3339 spelling a server reads in a URL
    /// (`Z` or `+00:00`, fractions of a second) is the caller's to give. Dates and UUIDs
    /// print as their formats say and stay typed.
    fn date_times_as_strings(&self, ty: Ty) -> Ty {
        match ty {
            Ty::DateTime => Ty::String,
            Ty::Vec(inner) => Ty::Vec(Box::new(self.date_times_as_strings(*inner))),
            Ty::Named(name) if self.alias_of(&name) == Some(&Ty::DateTime) => Ty::String,
            other => other,
        }
    }

    /// What a chain of aliases named `name` ends in, when `name` is an alias.
    fn alias_of(&self, name: &str) -> Option<&Ty> {
        let mut current = name;
        for _ in 0..=self.types.len() {
            let aliased = self.types.iter().find_map(|t| match t {
                crate::ir::TypeDef::Alias(a) if a.name == current => Some(&a.ty),
                _ => None,
            })?;
            match aliased {
                Ty::Named(next) => current = next,
                other => return Some(other),
            }
        }
        None
    }

    /// Whether the component schema `name` became a struct.
    fn is_struct(&self, name: &str) -> bool {
        self.types
            .iter()
            .any(|t| matches!(t, crate::ir::TypeDef::Struct(s) if s.name == name))
    }

    /// Whether a list item has a text form of its own in a parameter (a scalar, an enum):
    /// not a list, map, object, tuple or any JSON.
    fn is_scalar_item(&self, item: &Ty) -> bool {
        match item {
            Ty::Vec(_) | Ty::Map(_) | Ty::Json | Ty::Option(_) | Ty::Unit | Ty::Tuple(_) => false,
            Ty::Named(n) => !self.is_object(n),
            _ => true,
        }
    }

    /// Whether a named type is an object on the wire: a struct, or an alias of a map
    /// (`additionalProperties` alone), whose properties a parameter style spreads out.
    fn is_object(&self, name: &str) -> bool {
        self.is_struct(name)
            || self.types.iter().any(
                |t| matches!(t, crate::ir::TypeDef::Alias(a) if a.name == name && matches!(a.ty, Ty::Map(_))),
            )
    }

    /// A parameter with its `$ref`s followed, and the pointer it was found at.
    fn resolve_parameter(&self, p: &Parameter, ptr: &str) -> Result<(Parameter, String), Located> {
        let (param, at) = refs::follow(self.spec, p, ptr)?.into_parts();
        let param = param.clone();
        if param.name.as_deref().is_none_or(str::is_empty) {
            missing(&at, "name")?;
        }
        if param.location.is_none() {
            missing(&at, "in")?;
        }
        Ok((param, at))
    }

    /// A request body with its `$ref`s followed, and the pointer it was found at. A
    /// reference may name a component (`#/components/requestBodies/Pet`) or another
    /// operation's body (`#/paths/~1pets/post/requestBody`), which specs use to share a
    /// body without a component.
    fn resolve_request_body(
        &self,
        b: &RequestBody,
        ptr: &str,
    ) -> Result<(RequestBody, String), Located> {
        let (body, at) = refs::follow(self.spec, b, ptr)?.into_parts();
        Ok((body.clone(), at))
    }

    /// The request body arguments, one per supported media type in spec order.
    fn bodies(&mut self, b: &RequestBody, ptr: &str, prefix: &str) -> Result<Vec<Body>, Problem> {
        let (body, at) = self.resolve_request_body(b, ptr)?;
        let content_ptr = push_pointer(&at, "content");
        let doc = self
            .text(body.description.as_ref(), &push_pointer(&at, "description"))
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "The request body.".to_owned());
        if body.content.is_empty() {
            // A body that names no media type describes nothing a client could send; the
            // operation is still one the caller may want (its answers are described).
            self.warn(
                WarningKind::UnsupportedMediaType,
                content_ptr,
                "the request body names no media type: the operation is generated without a body",
            );
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let mut refused = Vec::new();
        for (media, media_type) in &body.content {
            let media_ptr = push_pointer(&content_ptr, media);
            let Some(kind) = body_kind(media) else {
                refused.push((media_ptr, media.clone(), String::new()));
                continue;
            };
            let schema_ptr = push_pointer(&media_ptr, "schema");
            let mut form = None;
            let ty = match (kind, &media_type.schema) {
                (BodyKind::Multipart, schema) => {
                    match self.form(schema.as_ref(), &schema_ptr, prefix)? {
                        Ok(f) => form = Some(f),
                        // No parts the spec names (a lone file, a string, parts in an
                        // `allOf`): the caller builds the form, which `reqwest` sends.
                        Err(why) => self.warn(
                            WarningKind::UnsupportedMediaType,
                            &media_ptr,
                            format!(
                                "a `{media}` body whose parts the generator cannot read \
                                 ({why}): the method takes a `reqwest::multipart::Form` the \
                                 caller builds"
                            ),
                        ),
                    }
                    Ty::Json
                }
                (BodyKind::Json | BodyKind::Form, Some(s)) => {
                    self.ty(s, &schema_ptr, &format!("{prefix}Body"))?.0
                }
                (BodyKind::Json | BodyKind::Form, None) => {
                    self.warn(
                        WarningKind::UntypedSchema,
                        &media_ptr,
                        "a body without `schema` (any JSON value) becomes `serde_json::Value`",
                    );
                    Ty::Json
                }
                (BodyKind::Text, _) => Ty::String,
                // The argument's type is fixed by the emitter (`impl Into<reqwest::Body>`).
                (BodyKind::Binary, _) => Ty::Json,
            };
            let media = match media.split(';').next().unwrap_or("").trim() {
                "*/*" | "application/*" | "" => "application/octet-stream".to_owned(),
                _ => media.clone(),
            };
            out.push(Body {
                ty,
                required: body.required,
                kind,
                media,
                doc: doc.clone(),
                form,
                schema: media_type.schema.is_some().then_some(schema_ptr),
            });
        }
        if out.is_empty() {
            let names: Vec<&str> = body.content.keys().map(String::as_str).collect();
            let why: String = refused.iter().map(|(_, _, why)| why.as_str()).collect();
            return Err(Problem::skip(
                content_ptr,
                format!("request body media types {names:?} are not supported{why}"),
            ));
        }
        for (media_ptr, media, why) in refused {
            self.warn(
                WarningKind::UnsupportedMediaType,
                media_ptr,
                format!("request body media type `{media}` is not supported{why}; the operation is generated without it"),
            );
        }
        Ok(out)
    }

    /// The documented responses, with variant names.
    fn responses(
        &mut self,
        op: &spec::Operation,
        ptr: &str,
        prefix: &str,
    ) -> Result<Vec<ResponseDef>, Problem> {
        let mut variants = Scope::default();
        let mut out = Vec::new();
        for (key, r) in &op.responses {
            let r_ptr = push_pointer(&push_pointer(ptr, "responses"), key);
            let (resp, at) = refs::follow(self.spec, r, &r_ptr)?.into_parts();
            let status = parse_status(key).ok_or_else(|| {
                Located::new(
                    r_ptr.clone(),
                    format!("`{key}` is not a status code, a class like `4XX` or `default`"),
                )
            })?;
            let variant = match &status {
                StatusMatch::Code(c) => {
                    reason(*c).map_or_else(|| format!("Status{c}"), str::to_owned)
                }
                StatusMatch::Class(c) => format!("Status{c}xx"),
                StatusMatch::Default => "Default".to_owned(),
            };
            let content_ptr = push_pointer(&at, "content");
            // JSON where the answer may be JSON, else text, else bytes.
            let classes: Vec<(ResponseClass, &String, &spec::MediaType)> = resp
                .content
                .iter()
                .map(|(m, t)| (response_class(m, t), m, t))
                .collect();
            let best = classes.iter().min_by_key(|(c, _, _)| *c);
            let schema = match best {
                Some((ResponseClass::Json, media, mt)) if mt.schema.is_some() => {
                    Some(push_pointer(&push_pointer(&content_ptr, media), "schema"))
                }
                _ => None,
            };
            let payload = match best {
                Some((ResponseClass::Json, media, mt)) => match &mt.schema {
                    Some(s) => {
                        let hint = format!("{prefix}{variant}Body");
                        let schema_ptr = push_pointer(&push_pointer(&content_ptr, media), "schema");
                        let (ty, nullable) = self.ty(s, &schema_ptr, &hint)?;
                        // A body that may be `null` decodes into an `Option`.
                        Payload::Json(match ty {
                            Ty::Json | Ty::Unit => ty,
                            ty if nullable => Ty::Option(Box::new(ty)),
                            ty => ty,
                        })
                    }
                    None => {
                        self.warn(
                            WarningKind::UntypedSchema,
                            push_pointer(&content_ptr, media),
                            "a JSON answer without `schema` (any JSON value) becomes \
                             `serde_json::Value`",
                        );
                        Payload::Json(Ty::Json)
                    }
                },
                Some((ResponseClass::Text, _, _)) => Payload::Text,
                Some((ResponseClass::Bytes, _, _)) => Payload::Bytes,
                None => Payload::None,
            };
            let mut doc = self
                .text(resp.description.as_ref(), &push_pointer(&at, "description"))
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| format!("Status `{key}`."));
            let note = level_note(resp.level.map(Level::as_str), resp.decision.as_ref());
            if !note.is_empty() {
                doc.push_str(&format!("\n\nSpec{note}."));
            }
            let variant = variants.claim(variant);
            let headers = if self.server {
                self.response_headers(resp, &at, &format!("{prefix}{variant}"))?
            } else {
                Vec::new()
            };
            out.push(ResponseDef {
                status,
                variant,
                doc,
                payload,
                media: resp.content.keys().cloned().collect(),
                schema,
                declared: true,
                headers,
                headers_type: String::new(),
            });
        }
        Ok(out)
    }

    /// The headers an answer (at `at`) declares, each with its `$ref`s followed and lowered
    /// as a header parameter of the same `schema` or `content` is: its type, its rustdoc,
    /// its encoding. `Content-Type` is skipped, as OpenAPI says (the media type is
    /// `content`'s key), and so is `Content-Length`, which the server writes from the body
    /// it sends. A header whose name is no HTTP header name, that repeats one (names are
    /// case-insensitive), or whose value has no text form (JSON of no single type, a list
    /// of objects) is left out of the answer with a warning; the operation stays.
    /// `type_prefix` (operation and variant) names the types of inline schemas.
    fn response_headers(
        &mut self,
        resp: &spec::Response,
        at: &str,
        type_prefix: &str,
    ) -> Result<Vec<ResponseHeader>, Problem> {
        let headers_ptr = push_pointer(at, "headers");
        let mut names = Scope::default();
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for (wire, h) in &resp.headers {
            let lower = wire.to_ascii_lowercase();
            if lower == "content-type" || lower == "content-length" {
                continue;
            }
            let h_ptr = push_pointer(&headers_ptr, wire);
            let (header, h_at) = refs::follow(self.spec, h, &h_ptr)?.into_parts();
            let left_out = |why: String| {
                (
                    WarningKind::ResponseHeaderLeftOut,
                    format!("response header `{wire}` is left out of the server's answer: {why}"),
                )
            };
            if !is_header_name(wire) {
                let (kind, message) = left_out("it is not an HTTP header name".to_owned());
                self.warn(kind, h_ptr, message);
                continue;
            }
            if seen.contains(&lower) {
                let (kind, message) = left_out(
                    "another entry of the answer names the same header (names are \
                     case-insensitive)"
                        .to_owned(),
                );
                self.warn(kind, h_ptr, message);
                continue;
            }
            seen.push(lower);
            let p = Parameter {
                name: Some(wire.clone()),
                location: Some("header".to_owned()),
                description: header.description.clone(),
                required: header.required,
                schema: header.schema.clone(),
                content: header.content.clone(),
                style: header.style.clone(),
                explode: header.explode,
                deprecated: header.deprecated,
                ..Parameter::default()
            };
            let lowered = match &p.content {
                Some(content) => {
                    self.content_param(&p, content, ParamLocation::Header, wire, &h_at, type_prefix)
                }
                None => {
                    self.schema_param(&p, &h_at, wire.clone(), ParamLocation::Header, type_prefix)
                }
            };
            let param = match lowered {
                Ok(param) => param,
                Err(Problem::Skip(located)) => {
                    // The parameter lowering's reason, said of the header.
                    let why = located
                        .message
                        .replacen(&format!("parameter `{wire}` "), "it ", 1);
                    let (kind, message) = left_out(why);
                    self.warn(kind, located.pointer, message);
                    continue;
                }
                Err(refused) => return Err(refused),
            };
            let encoding = match param.list {
                ListEncoding::JsonText => HeaderEncoding::JsonText,
                ListEncoding::ObjectStyled { explode, .. } => HeaderEncoding::Simple { explode },
                _ => HeaderEncoding::Simple { explode: false },
            };
            // The stand-in of an undescribed parameter, said of a header.
            let stand_in = format!("The `{}` parameter.", param.wire);
            let mut doc = match param.doc.strip_prefix(&stand_in) {
                Some(rest) => format!("The `{}` header.{rest}", param.wire),
                None => param.doc,
            };
            if header.deprecated {
                doc.push_str(" Deprecated by the spec.");
            }
            out.push(ResponseHeader {
                name: names.claim(snake(&param.wire)),
                wire: param.wire,
                doc,
                ty: param.ty,
                required: param.required,
                encoding,
            });
        }
        Ok(out)
    }
}

/// Whether `name` is an HTTP field name (RFC 9110's `token`): letters, digits and
/// ``!#$%&'*+-.^_`|~``, at least one.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The responses with a `2XX` catch-all added where no documented success covers every
/// `2xx`: any `2xx` is a success (a server that answers `201` where the spec says `200`
/// has done what was asked; an error would invite a retry that does it twice). A lone
/// documented success already stands for every `2xx` (the emitter matches it so, decoding
/// with its schema); with none, or several (whose shapes an undeclared status could have
/// any of), the catch-all keeps the body as received, and its variant the status.
/// Computed after the streaming twin and the business check, which describe the
/// documented successes only.
fn with_undeclared_success(mut responses: Vec<ResponseDef>) -> Vec<ResponseDef> {
    let declared = responses.iter().filter(|r| r.status.is_success()).count();
    if declared == 1 || responses.iter().any(|r| r.status == StatusMatch::Class(2)) {
        return responses;
    }
    let mut variants = Scope::default();
    for r in &responses {
        variants.claim(r.variant.clone());
    }
    let doc = if declared == 0 {
        "A success (any `2xx`): the spec documents none, so the body is kept as received."
    } else {
        "A success status the spec does not document (a `2xx` other than the variants \
         above): the body is kept as received, since it could have any of their shapes."
    };
    responses.push(ResponseDef {
        status: StatusMatch::Class(2),
        variant: variants.claim("OtherSuccess".to_owned()),
        doc: doc.to_owned(),
        payload: Payload::Bytes,
        media: Vec::new(),
        schema: None,
        declared: false,
        headers: Vec::new(),
        headers_type: String::new(),
    });
    responses
}

/// ` (level SHOULD, decision 11)` from `x-level` / `x-decision`, or nothing when the level is
/// absent.
fn level_note(level: Option<&str>, decision: Option<&serde_json::Value>) -> String {
    let Some(level) = level else {
        return String::new();
    };
    let decision = match decision {
        Some(serde_json::Value::String(d)) => format!(", decision {d}"),
        Some(other) => format!(", decision {other}"),
        None => String::new(),
    };
    format!(" (level {}{decision})", level.to_ascii_uppercase())
}

/// How a parameter location is named in messages.
fn location_word(location: ParamLocation) -> &'static str {
    match location {
        ParamLocation::Path => "path",
        ParamLocation::Query => "query",
        ParamLocation::Header => "headers",
        ParamLocation::Cookie => "cookies",
    }
}

/// Where the parameter `p` travels, or `None` for a header the client sets itself: the
/// bearer token's `Authorization` (which then sets `security` if nothing else does),
/// `Accept` (kept in `accept_param` for negotiation) and `Content-Type`.
fn param_location(
    p: &Parameter,
    p_ptr: &str,
    wire: &str,
    bearer: Option<&String>,
    security: &mut Vec<Vec<String>>,
    accept_param: &mut Option<(Parameter, String)>,
) -> Result<Option<ParamLocation>, Problem> {
    let location = match p.location.as_deref() {
        Some("query") => ParamLocation::Query,
        Some("cookie") => ParamLocation::Cookie,
        Some("path") => ParamLocation::Path,
        Some("header") => {
            if let Some(bearer) = bearer.filter(|_| wire.eq_ignore_ascii_case("authorization")) {
                // The document spells the bearer scheme as a header parameter;
                // the client's token covers it.
                if security.iter().all(Vec::is_empty) {
                    *security = vec![vec![bearer.clone()]];
                }
                return Ok(None);
            }
            if wire.eq_ignore_ascii_case("accept") {
                // The client sends `Accept` itself; the values the spec lets a
                // caller choose become methods (see `negotiation`).
                *accept_param = Some((p.clone(), p_ptr.to_owned()));
                return Ok(None);
            }
            if wire.eq_ignore_ascii_case("content-type") {
                return Ok(None); // Set by the body's encoding (OpenAPI ignores it).
            }
            ParamLocation::Header
        }
        Some(other) => {
            return Err(Problem::skip(
                push_pointer(p_ptr, "in"),
                format!("parameters in `{other}` are not supported"),
            ));
        }
        None => missing(p_ptr, "in")?,
    };
    Ok(Some(location))
}

/// Reports a missing mandatory field.
fn missing<T>(ptr: &str, field: &str) -> Result<T, Located> {
    Err(Located::new(ptr, format!("missing `{field}`")))
}

/// Names the emitted method body binds itself (see `emit::client`), and the names a
/// request builder (`emit::requests`) keeps for itself: its `client` field and its `send`
/// method, which a setter named after a parameter would otherwise collide with.
const METHOD_LOCALS: &[&str] = &[
    "request", "response", "status", "bytes", "url", "body", "value", "v", "item", "joined",
    "cookies", "expanded", "client", "send",
];

/// The media type without parameters, lower case.
fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is JSON (`application/json`, `application/problem+json`, ...).
fn is_json(media: &str) -> bool {
    let essence = essence(media);
    essence == "application/json" || essence.ends_with("+json")
}

/// How a request body of this media type is sent, or `None` when the client cannot
/// send it (multipart types other than `form-data`).
fn body_kind(media: &str) -> Option<BodyKind> {
    let essence = essence(media);
    if is_json(&essence) {
        Some(BodyKind::Json)
    } else if essence == "application/x-www-form-urlencoded" {
        Some(BodyKind::Form)
    } else if essence == "multipart/form-data" {
        Some(BodyKind::Multipart)
    } else if essence.starts_with("multipart/") {
        None
    } else if essence.starts_with("text/") {
        Some(BodyKind::Text)
    } else {
        Some(BodyKind::Binary)
    }
}

/// The method-name suffix of a body sent by its own method.
fn kind_suffix(kind: BodyKind) -> &'static str {
    match kind {
        BodyKind::Json => "json",
        BodyKind::Form => "form",
        BodyKind::Text => "text",
        BodyKind::Binary => "binary",
        BodyKind::Multipart => "multipart",
    }
}

/// What a media type is for content negotiation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MediaKind {
    Json,
    Text,
    Bytes,
}

/// The kind of a media type, or `None` for a wildcard (`*/*`, `text/*`) or a malformed
/// one, which names no choice a caller could make.
fn media_kind(media: &str) -> Option<MediaKind> {
    let essence = essence(media);
    if essence.contains('*') || !essence.contains('/') {
        None
    } else if is_json(&essence) {
        Some(MediaKind::Json)
    } else if essence.starts_with("text/") {
        Some(MediaKind::Text)
    } else {
        Some(MediaKind::Bytes)
    }
}

/// How a negotiation twin reads a media type: JSON and `text/*` as text (JSON is text,
/// and a twin has no schema to decode it with), anything else as bytes.
fn twin_payload(media: &str) -> Payload {
    match media_kind(media) {
        Some(MediaKind::Json | MediaKind::Text) => Payload::Text,
        _ => Payload::Bytes,
    }
}

/// How a response body is read, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ResponseClass {
    Json,
    Text,
    Bytes,
}

/// JSON for JSON media types, and for `*/*` with a schema that describes a value and is
/// not a binary string; text for `text/*`; bytes for the rest (`*/*` with `{}` says any
/// content of any type: the bytes keep it exactly, where JSON decoding would fail on a
/// body that is not JSON, such as the empty body of a `101`).
fn response_class(media: &str, mt: &spec::MediaType) -> ResponseClass {
    let essence = essence(media);
    if is_json(&essence) {
        return ResponseClass::Json;
    }
    if essence.starts_with("text/") {
        return ResponseClass::Text;
    }
    let binary_string = mt.schema.as_ref().is_some_and(|s| {
        matches!(&s.kind, Some(spec::SchemaType::One(t)) if t == "string")
            && matches!(s.format.as_deref(), Some("binary" | "byte"))
    });
    let described = mt
        .schema
        .as_ref()
        .is_some_and(|s| !super::schema::is_any(s));
    if essence == "*/*" && described && !binary_string {
        return ResponseClass::Json;
    }
    ResponseClass::Bytes
}

/// Why an operation cannot be generated: a broken spec refuses the whole document, a
/// construct the client does not support leaves only that operation out (with a warning).
pub(super) enum Problem {
    /// Refuse the document.
    Refuse(Located),
    /// Leave the operation out.
    Skip(Located),
}

impl Problem {
    fn skip(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Problem::Skip(Located::new(pointer, message))
    }
}

impl From<Located> for Problem {
    fn from(located: Located) -> Self {
        Problem::Refuse(located)
    }
}

impl Lowerer<'_> {
    /// A `summary` or `description` as trimmed text; one that is not a string is left out
    /// with a warning at `pointer`.
    fn text(&mut self, t: Option<&Text>, pointer: &str) -> Option<String> {
        match t? {
            Text::String(s) => Some(s.trim().to_owned()),
            Text::NotAString(_) => {
                self.warn(
                    WarningKind::Prose,
                    pointer,
                    "not a string; left out of the documentation",
                );
                None
            }
        }
    }
}

/// A response key as a status match.
fn parse_status(key: &str) -> Option<StatusMatch> {
    if key == "default" {
        return Some(StatusMatch::Default);
    }
    let upper = key.to_ascii_uppercase();
    if let Some(class) = upper.strip_suffix("XX") {
        return class
            .parse::<u16>()
            .ok()
            .filter(|c| (1..=5).contains(c))
            .map(StatusMatch::Class);
    }
    key.parse::<u16>()
        .ok()
        .filter(|c| (100..=599).contains(c))
        .map(StatusMatch::Code)
}

fn parse_method(m: &str) -> Method {
    match m {
        "get" => Method::Get,
        "put" => Method::Put,
        "post" => Method::Post,
        "delete" => Method::Delete,
        "options" => Method::Options,
        "head" => Method::Head,
        "patch" => Method::Patch,
        _ => Method::Trace,
    }
}

/// How a parameter's list values (or an object's properties) go on the wire, from
/// `style` and `explode`.
fn list_encoding(
    p: &Parameter,
    location: ParamLocation,
    object: bool,
    ptr: &str,
) -> Result<ListEncoding, Located> {
    let default_style = match location {
        ParamLocation::Query | ParamLocation::Cookie => "form",
        _ => "simple",
    };
    let style = p.style.as_deref().unwrap_or(default_style);
    let explode = p.explode.unwrap_or(style == "form");
    let at = || push_pointer(ptr, "style");
    let styled = |style| Ok(ListEncoding::ObjectStyled { style, explode });
    match (location, style) {
        (ParamLocation::Path | ParamLocation::Header, "simple") if object => {
            styled(ObjectStyle::Simple)
        }
        (ParamLocation::Path, "label") if object => styled(ObjectStyle::Label),
        (ParamLocation::Path, "matrix") if object => styled(ObjectStyle::Matrix),
        (ParamLocation::Query, "form") if object => Ok(ListEncoding::ObjectForm { explode }),
        (ParamLocation::Query, "deepObject") if object => Ok(ListEncoding::DeepObject),
        (ParamLocation::Query, "deepObject") => Ok(ListEncoding::DeepList),
        (ParamLocation::Query, "form") if explode => Ok(ListEncoding::Repeat),
        (ParamLocation::Query, "form") => Ok(ListEncoding::Join(",".into())),
        (ParamLocation::Query, "spaceDelimited") if !explode => Ok(ListEncoding::Join(" ".into())),
        (ParamLocation::Query, "pipeDelimited") if !explode => Ok(ListEncoding::Join("|".into())),
        (ParamLocation::Query, "spaceDelimited" | "pipeDelimited") => Ok(ListEncoding::Repeat),
        // `explode` changes nothing for a list in `simple` style (`blue,black`); it does
        // for objects, above.
        (ParamLocation::Path | ParamLocation::Header, "simple")
        | (ParamLocation::Cookie, "form") => Ok(ListEncoding::Join(",".into())),
        (ParamLocation::Path, "label") => Ok(ListEncoding::Label { explode }),
        (ParamLocation::Path, "matrix") => Ok(ListEncoding::Matrix { explode }),
        (_, other) => Err(Located::new(
            at(),
            format!("parameter style `{other}` is not supported here"),
        )),
    }
}

/// Splits a path template into literals and parameters, checking each `{name}` is a path
/// parameter.
fn split_path(path: &str, params: &[Param], ptr: &str) -> Result<Vec<PathPart>, Located> {
    let mut parts = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(PathPart::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| Located::new(ptr, "unclosed `{` in the path"))?;
        let wire = &rest[open + 1..close];
        let param = params
            .iter()
            .find(|p| p.location == ParamLocation::Path && p.wire == wire)
            .ok_or_else(|| Located::new(ptr, format!("path parameter `{wire}` is not declared")))?;
        parts.push(PathPart::Param(param.name.clone()));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(PathPart::Literal(rest.to_owned()));
    }
    Ok(parts)
}
