//! Printing `models.rs` and `client.rs` on every core.
//!
//! Parsing and printing the emitted tokens is most of the generator's time, and on a
//! large spec `client.rs` alone is two or three times `models.rs`: one thread per file
//! left a core idle for most of the run. Both files are cut into parts (runs of types, of
//! operations, and the pieces that are not one type's or one operation's), and the
//! threads take parts from one queue until none is left. Tokens cannot cross threads, so
//! a part is emitted from the IR on the thread that prints it. Each part prints as the
//! text it is in the whole (see `render::unspaced` and `render::members`); the parts are
//! put together in spec order and spaced once, so the files are byte for byte those of
//! printing each file whole (a test below compares the two).

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use proc_macro2::TokenStream;
use quote::quote;

use super::{builders, client, models, render};
use crate::error::Error;
use crate::ir::Api;

/// Types in one part of `models.rs`: large enough that a part's own cost (a thread's
/// turn at the queue, a printer started) is small beside it, small enough that the two
/// threads end close together.
const TYPES_PER_PART: usize = 48;
/// Operations in one part of `client.rs` (an operation prints to several times the text
/// of a type: its method, its answer enums, their decoders).
const OPERATIONS_PER_PART: usize = 12;

/// The two printed files, and what `client.rs` calls of the runtime's encoders.
pub(super) struct Printed {
    pub(super) models: String,
    pub(super) client: String,
    pub(super) client_runtime: Vec<&'static str>,
}

/// One part of a file.
enum Part {
    ModelsHead,
    Types(Range<usize>),
    ModelsTail,
    CredentialMethods,
    Operations(Range<usize>),
    ClientTail,
}

/// What a part printed as.
enum Text {
    Plain(Piece),
    /// Operations: members of `impl Client`, the items beside it, and the encoders they
    /// call.
    Operations {
        members: Piece,
        items: Piece,
        runtime: Vec<&'static str>,
    },
}

/// A part's printed text, and the same spaced ([`render::space`]) on the thread that
/// printed it: spacing a whole file after the parallel part was a core's work while the
/// other waited. `None` for a text whose last line is not ended, which can only be
/// spaced with what follows it.
struct Piece {
    text: String,
    spaced: Option<String>,
}

impl Piece {
    fn of(text: String) -> Piece {
        let spaced = (text.is_empty() || text.ends_with('\n')).then(|| render::space(&text));
        Piece { text, spaced }
    }
}

/// The parts of both files, the costly ones first so that the last parts to be taken
/// are small.
fn parts(api: &Api) -> Vec<Part> {
    // Runs of `size`, the last ones smaller: a thread that takes the last part while the
    // other is idle keeps it waiting for as long as that part takes (a run of twelve
    // operations is a twentieth of nexus's printing).
    let chunks = |len: usize, size: usize| -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < len {
            let n = size.min((len - start).div_ceil(4).max(size / 4).max(1));
            let end = (start + n).min(len);
            out.push(start..end);
            start = end;
        }
        out
    };
    let mut parts = vec![Part::ClientTail, Part::ModelsTail];
    let mut operations = chunks(api.operations.len(), OPERATIONS_PER_PART).into_iter();
    let mut types = chunks(api.types.len(), TYPES_PER_PART).into_iter();
    loop {
        let (op, ty) = (operations.next(), types.next());
        if op.is_none() && ty.is_none() {
            break;
        }
        parts.extend(op.map(Part::Operations));
        parts.extend(ty.map(Part::Types));
    }
    parts.extend([Part::CredentialMethods, Part::ModelsHead]);
    parts
}

/// The header of the client's `impl` block, which its members are printed inside.
fn client_impl() -> TokenStream {
    quote!(impl Client)
}

/// Emits and prints one part. `client_context` is this thread's, made on its first
/// client part around the context all threads share, which the first thread to need it
/// makes (a thread that needs it meanwhile waits for it).
fn print_part<'a>(
    api: &'a Api,
    part: &Part,
    models_context: &models::Context<'_>,
    client_shared: &'a OnceLock<client::Shared<'a>>,
    client_context: &mut Option<client::Context<'a>>,
) -> Result<Text, Error> {
    let plain = |path: &str, tokens| {
        render::unspaced(path, tokens).map(|text| Text::Plain(Piece::of(text)))
    };
    match part {
        Part::ModelsHead => plain("models.rs", models::head(api)),
        Part::Types(range) => plain(
            "models.rs",
            models::types(api, models_context, range.clone()),
        ),
        Part::ModelsTail => {
            let mut text = render::unspaced("models.rs", models::helpers(api, models_context))?;
            for block in builders::blocks(api, true) {
                text.push_str(&block_text(block)?);
            }
            Ok(Text::Plain(Piece::of(text)))
        }
        Part::CredentialMethods => Ok(Text::Plain(Piece::of(render::members(
            "client.rs",
            &client_impl(),
            client::credential_methods(api),
        )?))),
        Part::Operations(range) => {
            let context = thread_context(api, client_shared, client_context);
            let ops = client::operations(api, context, range.clone());
            Ok(Text::Operations {
                runtime: ops.runtime_parts(),
                members: Piece::of(render::members("client.rs", &client_impl(), ops.members)?),
                items: Piece::of(render::unspaced("client.rs", ops.items)?),
            })
        }
        Part::ClientTail => {
            let context = thread_context(api, client_shared, client_context);
            plain("client.rs", client::tail_items(api, context))
        }
    }
}

/// A request model's `impl` block and the items after it, printed as
/// `render::unspaced` prints their tokens ([`builders::Block::into_tokens`]): the header's
/// lines, the members in order (runs of tokens printed as `render::members` prints
/// them, the setters already printed as text), the closing line, the items after.
fn block_text(block: builders::Block) -> Result<String, Error> {
    let builders::Block {
        header,
        members,
        after,
    } = block;
    let mut printed = String::new();
    let mut run = TokenStream::new();
    for member in members {
        match member {
            builders::Member::Tokens(tokens) => run.extend(tokens),
            builders::Member::Text(text) => {
                if !run.is_empty() {
                    printed.push_str(&render::members(
                        "models.rs",
                        &header,
                        std::mem::take(&mut run),
                    )?);
                }
                printed.push_str(&text);
            }
        }
    }
    if !run.is_empty() {
        printed.push_str(&render::members("models.rs", &header, run)?);
    }
    let ends = render::block_ends("models.rs", &header)?;
    let mut text = if printed.is_empty() {
        ends.empty
    } else {
        format!("{}{printed}{}", ends.open, ends.close)
    };
    text.push_str(&render::unspaced("models.rs", after)?);
    Ok(text)
}

/// This thread's client context, made on its first client part (see [`print_part`]).
fn thread_context<'a, 'c>(
    api: &'a Api,
    shared: &'a OnceLock<client::Shared<'a>>,
    context: &'c mut Option<client::Context<'a>>,
) -> &'c client::Context<'a> {
    context
        .get_or_insert_with(|| client::Context::new(shared.get_or_init(|| client::Shared::of(api))))
}

/// Prints `models.rs` and `client.rs` (the client without the runtime's text, which the
/// caller appends), on as many threads as there are cores.
pub(super) fn print(api: &Api) -> Result<Printed, Error> {
    let parts = parts(api);
    let models_context = models::Context::of(api);
    let client_shared = OnceLock::new();
    let next = AtomicUsize::new(0);
    let printed: Vec<Mutex<Option<Result<Text, Error>>>> =
        parts.iter().map(|_| Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(parts.len());
    let worker = || {
        let mut client_context = None;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(part) = parts.get(i) else { break };
            let text = print_part(
                api,
                part,
                &models_context,
                &client_shared,
                &mut client_context,
            );
            *printed[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
        }
    };
    let panicked = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers).map(|_| scope.spawn(worker)).collect();
        let here = std::panic::catch_unwind(std::panic::AssertUnwindSafe(worker)).is_err();
        let there = handles.into_iter().any(|h| h.join().is_err());
        here || there
    });
    if panicked {
        return Err(Error::Internal {
            file: "client.rs".to_owned(),
            message: "emitter panicked".into(),
        });
    }
    let mut texts = Vec::with_capacity(parts.len());
    for cell in printed {
        let text = cell.into_inner().unwrap_or_else(|e| e.into_inner());
        texts.push(text.unwrap_or_else(|| {
            Err(Error::Internal {
                file: "client.rs".to_owned(),
                message: "a part was not printed".into(),
            })
        })?);
    }
    assemble(api, &parts, texts)
}

/// Puts the printed parts together in each file's order and spaces the files.
fn assemble(api: &Api, parts: &[Part], texts: Vec<Text>) -> Result<Printed, Error> {
    let empty = || Piece::of(String::new());
    let (mut models_head, mut models_tail, mut credentials, mut client_tail) =
        (empty(), empty(), empty(), empty());
    let mut types: Vec<(usize, Piece)> = Vec::new();
    let mut operations: Vec<(usize, Piece, Piece)> = Vec::new();
    let mut runtime: Vec<&'static str> = Vec::new();
    for (part, text) in parts.iter().zip(texts) {
        match (part, text) {
            (Part::ModelsHead, Text::Plain(t)) => models_head = t,
            (Part::Types(r), Text::Plain(t)) => types.push((r.start, t)),
            (Part::ModelsTail, Text::Plain(t)) => models_tail = t,
            (Part::CredentialMethods, Text::Plain(t)) => credentials = t,
            (Part::ClientTail, Text::Plain(t)) => client_tail = t,
            (
                Part::Operations(r),
                Text::Operations {
                    members,
                    items,
                    runtime: used,
                },
            ) => {
                for name in used {
                    if !runtime.contains(&name) {
                        runtime.push(name);
                    }
                }
                operations.push((r.start, members, items));
            }
            _ => unreachable!("each part prints as its kind of text"),
        }
    }
    types.sort_by_key(|(start, _)| *start);
    operations.sort_by_key(|(start, ..)| *start);
    // The same order `client::emit` gives the runtime's parts: the order it names them in.
    runtime.sort_by_key(|name| client::RUNTIME_PARTS.iter().position(|n| n == name));
    let models: Vec<&Piece> = std::iter::once(&models_head)
        .chain(types.iter().map(|(_, t)| t))
        .chain([&models_tail])
        .collect();
    let head = Piece::of(render::unspaced("client.rs", client::head(api, &runtime))?);
    let members: Vec<&Piece> = std::iter::once(&credentials)
        .chain(operations.iter().map(|(_, m, _)| m))
        .collect();
    let block = render::block_ends("client.rs", &client_impl())?;
    let block = match members.iter().all(|m| m.text.is_empty()) {
        true => [Piece::of(block.empty), empty()],
        false => [Piece::of(block.open), Piece::of(block.close)],
    };
    let client: Vec<&Piece> = std::iter::once(&head)
        .chain([&block[0]])
        .chain(members.iter().copied())
        .chain([&block[1], &client_tail])
        .chain(operations.iter().map(|(_, _, items)| items))
        .collect();
    Ok(Printed {
        models: put_together(&models),
        client: put_together(&client),
        client_runtime: runtime,
    })
}

/// One file from its pieces in order, spaced: their spaced texts joined, or (when one
/// could not be spaced alone) the whole spaced at once.
fn put_together(pieces: &[&Piece]) -> String {
    let spaced: Option<Vec<&str>> = pieces.iter().map(|p| p.spaced.as_deref()).collect();
    spaced.map(render::join_spaced).unwrap_or_else(|| {
        let whole: String = pieces.iter().map(|p| p.text.as_str()).collect();
        render::space(&whole)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(path: &str) -> Api {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
                .unwrap();
        let source = spec_model::Source {
            name: path.into(),
            text,
        };
        crate::lower::lower(&spec_model::parse(&source).unwrap())
            .unwrap()
            .0
    }

    /// The parts printed apart and put together are the files printed whole.
    #[test]
    fn the_parts_put_together_are_the_files_printed_whole() {
        for path in [
            "tests/specs/security.yaml",
            "tests/specs/hygiene.yaml",
            "tests/corpus/nexus.json",
            "tests/corpus/kinto-26.5.0-api.json",
        ] {
            let api = api(path);
            let printed = print(&api).unwrap();
            let (client, runtime) = client::emit(&api);
            assert_eq!(
                printed.models,
                render::render("models.rs", models::emit(&api)).unwrap(),
                "{path}: models.rs"
            );
            assert_eq!(
                printed.client,
                render::render("client.rs", client).unwrap(),
                "{path}: client.rs"
            );
            assert_eq!(printed.client_runtime, runtime, "{path}");
            assert!(
                parts(&api).len() > 2 || api.operations.len() <= OPERATIONS_PER_PART,
                "{path}: cut into parts"
            );
        }
    }
}
