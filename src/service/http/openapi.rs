//! The OpenAPI 3.1 document, generated from the handlers' `#[utoipa::path]` annotations and
//! served without a key at `/openapi.json`, `/.well-known/openapi.json` and `/doc`.

use axum::Extension;
use axum::body::Bytes;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::collections::BTreeMap;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi as Document, Ref, RefOr, ResponseBuilder};
use utoipa::{IntoResponses, Modify, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AppState;
use crate::api::ErrorBody;
use crate::api::model::{
    CollectionJobStatus, IssueStatus, KnowledgeBase, RunPlanJobStatus, Severity, SimulationJobSort,
    SimulationJobsIncluded, ValueStatusFilter, inputs_refusing_unknown_members, limits_beyond_the_generator,
    rules_beyond_the_generator,
};

/// The name the bearer scheme has under `components.securitySchemes` (also spelled out in
/// `security(...)` below, which takes only a literal).
pub const BEARER: &str = "bearer";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "switchboard local service",
        version = "1.0.0",
        description = "Simulation and call-analytics interface, served locally over embedded SQLite. \
            Every operation needs `Authorization: Bearer <API_KEY>` except this document. \
            Every error answers with the error body (`ErrorBody`)."
    ),
    // The knowledge base has no route here yet; its schema states its limit all the same.
    // Enums that only query parameters name are listed so that their `$ref`s resolve.
    components(schemas(ErrorBody, KnowledgeBase, ValueStatusFilter, CollectionJobStatus, IssueStatus, Severity, RunPlanJobStatus, SimulationJobsIncluded, SimulationJobSort)),
    modifiers(&BearerAuth),
    security(("bearer" = []))
)]
struct ApiDoc;

/// Declares the bearer scheme the global `security` requirement names.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .bearer_format("API key")
            .description(Some("An API key from the dashboard, or the one `switchboard serve` printed."))
            .build();
        components.add_security_scheme(BEARER, SecurityScheme::Http(scheme));
    }
}

/// The document's root: info, the bearer scheme and the global security requirement.
pub fn base() -> Document {
    ApiDoc::openapi()
}

/// Marks the operations the auth layer lets through without a key as needing none.
pub fn mark_public(document: &mut Document, is_public: impl Fn(&str) -> bool) {
    for (_, item) in document.paths.paths.iter_mut().filter(|(path, _)| is_public(path)) {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
            &mut item.head,
            &mut item.options,
        ];
        for operation in operations.into_iter().flatten() {
            operation.security = Some(Vec::new());
        }
    }
}

/// States what the generated schemas cannot: the inputs that refuse unknown members say
/// `additionalProperties: false`, and a response that flattens one of them (`RunPlan`,
/// `Persona`) becomes one object instead of an `allOf`, where that keyword would refuse the
/// response's own members.
pub fn tighten(json: &mut serde_json::Value) {
    let strict: Vec<String> = inputs_refusing_unknown_members().into_iter().map(|n| n.into_owned()).collect();
    let Some(schemas) = json.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) else {
        return;
    };
    for (name, pointer, keyword, value) in limits_beyond_the_generator() {
        if let Some(target) = schemas.get_mut(name.as_ref()).and_then(|s| s.pointer_mut(pointer))
            && let Some(target) = target.as_object_mut()
        {
            target.insert(keyword.into(), value);
        }
    }
    for name in &strict {
        if let Some(schema) = schemas.get_mut(name).and_then(serde_json::Value::as_object_mut) {
            schema.insert("additionalProperties".into(), serde_json::Value::Bool(false));
        }
    }
    let schemas = schemas.clone();
    flatten_everywhere(json, &schemas);
    // After flattening: a rule says what an input refuses, and a response that flattens the
    // input (a plan read back names its metrics by `id` and `slug`) does not inherit it.
    if let Some(schemas) = json.pointer_mut("/components/schemas").and_then(serde_json::Value::as_object_mut) {
        for (name, pointer, keyword, value) in rules_beyond_the_generator() {
            if let Some(target) = schemas.get_mut(name.as_ref()).and_then(|s| s.pointer_mut(&pointer)) {
                state_rule(target, keyword, value);
            }
        }
    }
    event_stream(json);
    require_text_in_queries(json);
    conditional_gets(json);
    screened_refusals(json);
}

/// Sets `keyword` on a schema; `required` adds to the members already required and `allOf` to
/// the rules already stated, and a rule on a `$ref` alone keeps the reference beside it (3.1
/// reads sibling keywords).
fn state_rule(target: &mut serde_json::Value, keyword: &str, value: serde_json::Value) {
    let Some(target) = target.as_object_mut() else { return };
    match (keyword, target.get_mut(keyword), value) {
        ("required" | "allOf", Some(serde_json::Value::Array(listed)), serde_json::Value::Array(more)) => {
            listed.extend(more.into_iter().filter(|m| !listed.contains(m)).collect::<Vec<_>>());
        }
        (_, _, value) => {
            target.insert(keyword.into(), value);
        }
    }
}

/// What the request screen (`screen.rs`) refuses on every route, stated on each operation it
/// can happen to: 400 for a parameter that is not UTF-8 text, holds NUL, or is no UUID where
/// one is declared; 415 for a body that is not JSON (or arrives compressed).
fn screened_refusals(json: &mut serde_json::Value) {
    let refusal = |description: &str| {
        serde_json::json!({
            "description": description,
            "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{}", ErrorBody::name()) } } }
        })
    };
    let Some(paths) = json.get_mut("paths").and_then(serde_json::Value::as_object_mut) else { return };
    for item in paths.values_mut().filter_map(serde_json::Value::as_object_mut) {
        for operation in item.values_mut().filter_map(serde_json::Value::as_object_mut) {
            let has_parameters =
                operation.get("parameters").and_then(serde_json::Value::as_array).is_some_and(|p| !p.is_empty());
            let has_body = operation.contains_key("requestBody");
            let Some(responses) = operation.get_mut("responses").and_then(serde_json::Value::as_object_mut) else {
                continue;
            };
            if (has_parameters || has_body) && !responses.contains_key("400") {
                responses.insert(
                    "400".into(),
                    refusal("Invalid request: `param` names the parameter at fault (type validation, code invalid_parameter)"),
                );
            }
            if has_body && !responses.contains_key("415") {
                responses.insert(
                    "415".into(),
                    refusal(
                        "The body is not JSON, or arrives compressed (type validation, code unsupported_media_type)",
                    ),
                );
            }
        }
    }
}

/// `GET /v1/events`: its text parameters say what the service accepts (known types, UUIDs,
/// `all` or `none`), and each Server-Sent Event is described as it is sent: `id`, `event` and
/// `data`, the `Event` as JSON text.
fn event_stream(json: &mut serde_json::Value) {
    let Some(operation) = json.pointer_mut("/paths/~1v1~1events/get") else { return };
    let schemas = crate::api::model::event_query_schemas();
    for parameter in operation.get_mut("parameters").and_then(serde_json::Value::as_array_mut).into_iter().flatten() {
        let name = parameter.get("name").and_then(serde_json::Value::as_str).unwrap_or_default();
        if let Some((_, schema)) = schemas.iter().find(|(n, _)| *n == name) {
            parameter["schema"] = schema.clone();
        }
    }
    let event = serde_json::json!({ "$ref": format!("#/components/schemas/{}", crate::api::model::Event::name()) });
    if let Some(stream) = operation.pointer_mut("/responses/200/content/text~1event-stream") {
        stream["schema"] = crate::api::model::event_message_schema(event);
    }
}

/// Every GET answers with an `ETag`, and `304` when `If-None-Match` names it (`etag.rs`).
fn conditional_gets(json: &mut serde_json::Value) {
    let Some(paths) = json.get_mut("paths").and_then(serde_json::Value::as_object_mut) else { return };
    for item in paths.values_mut() {
        let Some(responses) = item.pointer_mut("/get/responses").and_then(serde_json::Value::as_object_mut) else {
            continue;
        };
        if let Some(ok) = responses.get_mut("200").and_then(serde_json::Value::as_object_mut) {
            let headers = ok.entry("headers").or_insert_with(|| serde_json::json!({}));
            if let Some(headers) = headers.as_object_mut() {
                headers.insert(
                    "ETag".into(),
                    serde_json::json!({
                        "description": "The body's entity tag: send it back in `If-None-Match` to be answered 304 while nothing changed.",
                        "schema": { "type": "string" }
                    }),
                );
            }
        }
        responses.insert(
            "304".into(),
            serde_json::json!({ "description": "Not Modified: the `If-None-Match` tag is still current; no body." }),
        );
    }
}

/// Every `allOf` in the document (component schemas and the ones inlined in responses).
fn flatten_everywhere(value: &mut serde_json::Value, schemas: &serde_json::Map<String, serde_json::Value>) {
    flatten_all_of(value, schemas);
    match value {
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| flatten_everywhere(v, schemas)),
        serde_json::Value::Array(list) => list.iter_mut().for_each(|v| flatten_everywhere(v, schemas)),
        _ => {}
    }
}

/// An empty query parameter is refused (`?agentId=` names nothing), so every text parameter
/// says `minLength: 1`.
fn require_text_in_queries(json: &mut serde_json::Value) {
    let Some(paths) = json.get_mut("paths").and_then(serde_json::Value::as_object_mut) else { return };
    for item in paths.values_mut().filter_map(serde_json::Value::as_object_mut) {
        for operation in item.values_mut() {
            let parameters = operation.get_mut("parameters").and_then(serde_json::Value::as_array_mut);
            for parameter in parameters.into_iter().flatten() {
                if parameter.get("in").and_then(serde_json::Value::as_str) != Some("query") {
                    continue;
                }
                let Some(schema) = parameter.get_mut("schema").and_then(serde_json::Value::as_object_mut) else {
                    continue;
                };
                let text = match schema.get("type") {
                    Some(serde_json::Value::String(t)) => t == "string",
                    Some(serde_json::Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                    _ => false,
                };
                if text && !schema.contains_key("minLength") {
                    schema.insert("minLength".into(), 1.into());
                }
            }
        }
    }
}

/// `{allOf: [{$ref}, {properties}]}` → one object with the members of both.
fn flatten_all_of(schema: &mut serde_json::Value, schemas: &serde_json::Map<String, serde_json::Value>) {
    let Some(parts) = schema.get("allOf").and_then(serde_json::Value::as_array).cloned() else { return };
    let mut properties = serde_json::Map::new();
    let mut required: Vec<serde_json::Value> = Vec::new();
    for part in &parts {
        let resolved = match part.get("$ref").and_then(serde_json::Value::as_str) {
            Some(reference) => match reference.rsplit('/').next().and_then(|name| schemas.get(name)) {
                Some(target) => target,
                None => return,
            },
            None => part,
        };
        if resolved.get("allOf").is_some() || resolved.get("type").and_then(serde_json::Value::as_str) != Some("object")
        {
            return;
        }
        if let Some(members) = resolved.get("properties").and_then(serde_json::Value::as_object) {
            // What a caller must send at least one of, a saved resource may hold none of (a plan
            // of flows lists `personas: []`, as the hosted service does): no `minItems` here.
            properties.extend(members.iter().map(|(name, member)| {
                let mut member = member.clone();
                if let Some(object) = member.as_object_mut() {
                    object.remove("minItems");
                }
                (name.clone(), member)
            }));
        }
        for name in resolved.get("required").and_then(serde_json::Value::as_array).into_iter().flatten() {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    }
    let Some(object) = schema.as_object_mut() else { return };
    object.remove("allOf");
    object.insert("type".into(), "object".into());
    object.insert("properties".into(), serde_json::Value::Object(properties));
    if !required.is_empty() {
        object.insert("required".into(), serde_json::Value::Array(required));
    }
}

/// The serialized document, handed to the handlers below as a request extension.
#[derive(Clone)]
pub struct Served(Bytes);

impl Served {
    pub fn new(document: &serde_json::Value) -> Served {
        Served(Bytes::from(document.to_string()))
    }
}

/// The routes that serve the document.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(openapi_json)).routes(routes!(well_known_openapi_json)).routes(routes!(doc))
}

fn serve(served: Served) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], served.0).into_response()
}

/// The OpenAPI 3.1 document of this interface.
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "getOpenApiDocument",
    tag = "Specification",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object))
)]
async fn openapi_json(Extension(served): Extension<Served>) -> Response {
    serve(served)
}

/// The OpenAPI 3.1 document, at its well-known location.
#[utoipa::path(
    get,
    path = "/.well-known/openapi.json",
    operation_id = "getOpenApiDocumentWellKnown",
    tag = "Specification",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object))
)]
async fn well_known_openapi_json(Extension(served): Extension<Served>) -> Response {
    serve(served)
}

/// The OpenAPI 3.1 document (the same JSON as `/openapi.json`).
#[utoipa::path(
    get,
    path = "/doc",
    operation_id = "getOpenApiDoc",
    tag = "Specification",
    responses((status = 200, description = "The OpenAPI 3.1 document", body = Object))
)]
async fn doc(Extension(served): Extension<Served>) -> Response {
    serve(served)
}

/// Declares an error response: its status and description, with the error body as content.
macro_rules! error_response {
    ($(#[$doc:meta])* $name:ident, $status:literal, $description:expr) => {
        $(#[$doc])*
        pub struct $name;

        impl IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<utoipa::openapi::response::Response>> {
                BTreeMap::from([($status.to_string(), RefOr::T(error_body_response($status, $description)))])
            }
        }
    };
}

fn error_body_response(status: u16, description: impl Into<String>) -> utoipa::openapi::response::Response {
    let content = ContentBuilder::new().schema(Some(Ref::from_schema_name(ErrorBody::name()))).build();
    let mut response = ResponseBuilder::new().description(description).content("application/json", content);
    if status == 429 {
        let seconds = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1));
        let retry_after = HeaderBuilder::new()
            .schema(Some(seconds))
            .description(Some("Whole seconds until the key may send another request."))
            .build();
        response = response.header("Retry-After", retry_after);
    }
    response.build()
}

error_response!(
    /// 400: a body or query that breaks a rule; `param` names the field at fault.
    BadRequest,
    400,
    "Invalid request: `param` names the field at fault (type validation, code invalid_parameter or \
     missing_required_field)"
);
error_response!(
    /// 401: no key, or not a valid one.
    Unauthorized,
    401,
    "Missing or invalid API key (type authentication, code unauthorized)"
);
error_response!(
    /// 403: the read-only key tried to change something.
    Forbidden,
    403,
    "The key may not do this (type forbidden, code permission_denied)"
);
error_response!(
    /// 404: nothing with that id.
    NotFound,
    404,
    "No such resource (type not_found, code resource_not_found)"
);
error_response!(
    /// 409: the resource is in a state that refuses the change (a plan a job still runs).
    Conflict,
    409,
    "The resource's state refuses this; `code` says why and `message` what to do (type conflict)"
);
error_response!(
    /// 413: the body is larger than the service accepts.
    PayloadTooLarge,
    413,
    format!(
        "The request body is larger than {} bytes (type validation, code request_too_large)",
        super::MAX_BODY_BYTES
    )
);
error_response!(
    /// 429: the key's rate limit is used up; `Retry-After` says when to try again.
    TooManyRequests,
    429,
    "Too many requests for this key; see Retry-After (type rate_limit, code too_many_requests)"
);
error_response!(
    /// 500: the service failed; the cause is in its log.
    InternalError,
    500,
    "Internal error; the cause is in the service log (type internal, code internal_error)"
);
/// 503 `service_busy`: the service holds as much as it may for large answers on their way out
/// (clients slow to read them); `Retry-After` says when to ask again. Any answer over 64 KiB
/// may get it; documented on the streamed job read, the largest.
pub struct Busy;

impl IntoResponses for Busy {
    fn responses() -> BTreeMap<String, RefOr<utoipa::openapi::response::Response>> {
        let description = "The service holds as much as it may for large answers to other clients; see \
            Retry-After (type internal, code service_busy)";
        let mut response = error_body_response(503, description);
        let seconds = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1));
        let retry_after = HeaderBuilder::new()
            .schema(Some(seconds))
            .description(Some("Whole seconds until a share of the response budget should be free."))
            .build();
        response.headers.insert("Retry-After".to_owned(), RefOr::T(retry_after));
        BTreeMap::from([("503".to_owned(), RefOr::T(response))])
    }
}

error_response!(
    /// 503: the store did not answer.
    Unavailable,
    503,
    "The service cannot reach its store (type internal, code store_unavailable)"
);
