//! Three of Prefect's operations on the server half generated from its 3.9.1 spec
//! (`cargo xtask codegen --server`): create, read and delete a flow, kept in memory.
//! Every other operation answers the trait's 501.
//!
//! Not a target of the workspace: `cargo xtask prefect-server` copies it into a package
//! beside the generated crate, builds it, serves it and checks it with the conformance
//! harness and Schemathesis. Run it alone with `cargo xtask prefect-server --serve`.
//!
//! `prefect-flows [--port N]` serves on 127.0.0.1 (port 0 or none: the OS picks one) and
//! prints its base URL on the first line of stdout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use prefect_api::models::Flow;
use prefect_api::server::{
    Api, CreateFlowFlowsPostRequest, CreateFlowFlowsPostResponse, DeleteFlowFlowsIdDeleteRequest,
    DeleteFlowFlowsIdDeleteResponse, Problem, ReadFlowFlowsIdGetRequest,
    ReadFlowFlowsIdGetResponse,
};

/// The flows, by id. One lock for the map: a create must find an existing name and insert
/// under the same lock, or two creates of one name could both insert.
#[derive(Clone, Default)]
struct Flows {
    by_id: Arc<Mutex<HashMap<uuid::Uuid, Flow>>>,
}

impl Flows {
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<uuid::Uuid, Flow>>, Problem> {
        self.by_id
            .lock()
            .map_err(|_| Problem::internal("the flow store was poisoned by a panic"))
    }
}

/// Prefect's answer for an id it does not hold; the spec declares no 404 (FastAPI leaves
/// an `HTTPException` out of the document), so it goes out as a [`Problem`].
fn not_found() -> Problem {
    Problem::new(axum::http::StatusCode::NOT_FOUND, "Flow not found")
}

impl Api for Flows {
    /// Prefect's rule (the operation's description): a flow whose name is already held
    /// is not created again, the one held is returned. Both answer 200, the spec's only
    /// declared success.
    async fn create_flow_flows_post(
        &self,
        request: CreateFlowFlowsPostRequest,
    ) -> Result<CreateFlowFlowsPostResponse, Problem> {
        let body = request.body;
        let mut flows = self.lock()?;
        if let Some(flow) = flows.values().find(|f| f.name == body.name) {
            return Ok(CreateFlowFlowsPostResponse::Ok(flow.clone()));
        }
        let now = chrono::Utc::now().fixed_offset();
        let flow = Flow {
            id: uuid::Uuid::new_v4(),
            created: Some(now),
            updated: Some(now),
            name: body.name,
            tags: body.tags,
            labels: body.labels,
        };
        flows.insert(flow.id, flow.clone());
        Ok(CreateFlowFlowsPostResponse::Ok(flow))
    }

    async fn read_flow_flows_id_get(
        &self,
        request: ReadFlowFlowsIdGetRequest,
    ) -> Result<ReadFlowFlowsIdGetResponse, Problem> {
        let flows = self.lock()?;
        let flow = flows.get(&request.id).ok_or_else(not_found)?;
        Ok(ReadFlowFlowsIdGetResponse::Ok(flow.clone()))
    }

    async fn delete_flow_flows_id_delete(
        &self,
        request: DeleteFlowFlowsIdDeleteRequest,
    ) -> Result<DeleteFlowFlowsIdDeleteResponse, Problem> {
        let mut flows = self.lock()?;
        flows.remove(&request.id).ok_or_else(not_found)?;
        Ok(DeleteFlowFlowsIdDeleteResponse::NoContent)
    }
}

/// `--port N` from the command line; absent is 0, the OS's choice.
fn port() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port {value}: not a port number"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: prefect-flows [--port N])"
                ));
            }
        }
    }
    Ok(port)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let port = match port() {
        Ok(port) => port,
        Err(e) => {
            eprintln!("prefect-flows: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("prefect-flows: cannot listen on 127.0.0.1:{port}: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    // The router sits under the spec's server path (`/api`): the base URL includes it.
    let path = prefect_api::Client::SERVER_PATH;
    println!("prefect-flows listening on http://{addr}{path}");
    let app = prefect_api::server::router(Flows::default());
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("prefect-flows: {e}");
        return std::process::ExitCode::from(1);
    }
    std::process::ExitCode::SUCCESS
}
