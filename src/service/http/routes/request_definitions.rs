//! HTTP request definitions: how an endpoint dials out to its agent, listed, read, created and
//! updated in the hosted service's shape, with secret headers sealed (`request_definitions`).

use axum::extract::{Path, State};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{ListParams, OwnedFilter, created, data, list_kind, now, path_id};
use crate::api::model::{
    CursorPage, Data, HttpMethod, HttpRequestDefinition, HttpRequestDefinitionInput, HttpRequestDefinitionUpdate,
    Timestamp,
};
use crate::service::AppState;
use crate::service::agents::request_definitions;
use crate::service::http::error::ServiceResult;
use crate::service::http::extract::{Params, Valid};
use crate::service::http::openapi::{
    BadRequest, Forbidden, InternalError, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized,
};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_definitions, create_definition))
        .routes(routes!(read_definition, update_definition))
}

/// List HTTP request definitions.
#[utoipa::path(
    get,
    path = "/v1/http-request-definition",
    operation_id = "listHttpRequestDefinitions",
    tag = "HTTP Request Definition",
    params(ListParams),
    responses(
        (status = 200, description = "One page of definitions", body = CursorPage<HttpRequestDefinition>),
        BadRequest,
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn list_definitions(
    State(state): State<AppState>,
    Params(params): Params<ListParams>,
) -> ServiceResult<Response> {
    list_kind(&state, Kind::HttpRequestDefinition, params, OwnedFilter::default()).await
}

/// Get an HTTP request definition.
#[utoipa::path(
    get,
    path = "/v1/http-request-definition/{id}",
    operation_id = "getHttpRequestDefinition",
    tag = "HTTP Request Definition",
    params(("id" = Uuid, Path, description = "The definition's id")),
    responses(
        (status = 200, description = "The definition", body = Data<HttpRequestDefinition>),
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn read_definition(State(state): State<AppState>, Path(id): Path<String>) -> ServiceResult<Response> {
    let id = path_id(Kind::HttpRequestDefinition, &id)?.to_string();
    let definition: HttpRequestDefinition =
        state.store.read(move |c| store::require(c, Kind::HttpRequestDefinition, &id)).await?;
    Ok(data(&definition))
}

/// Create an HTTP request definition: how an endpoint dials out to its agent. Secret headers
/// (credentials, and those named in `secretHeaders`) are kept encrypted and shown masked, in
/// this answer too.
#[utoipa::path(
    post,
    path = "/v1/http-request-definition",
    operation_id = "createHttpRequestDefinition",
    tag = "HTTP Request Definition",
    request_body = HttpRequestDefinitionInput,
    responses(
        (status = 201, description = "The definition", body = Data<HttpRequestDefinition>),
        BadRequest,
        Unauthorized,
        Forbidden,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn create_definition(
    State(state): State<AppState>,
    Valid(input): Valid<HttpRequestDefinitionInput>,
) -> ServiceResult<Response> {
    let at = now();
    let body = input.body_text();
    let secret_headers = input.secret_headers.clone().filter(|names| !names.is_empty());
    let definition = HttpRequestDefinition {
        id: uuid::Uuid::new_v4(),
        scope: input.scope,
        description: input.description,
        url: input.url,
        method: Some(input.method.unwrap_or(HttpMethod::Post)),
        parsed_body: body.as_deref().and_then(|b| serde_json::from_str(b).ok()),
        body,
        headers: None,
        secret_headers,
        is_config_managed: Some(false),
        signing_secret: None,
        created_at: Some(Timestamp(at.clone())),
        updated_at: Some(Timestamp(at.clone())),
    };
    let headers = input.headers.unwrap_or_default();
    let vault = state.store.vault();
    let stored =
        state.store.write(move |tx| request_definitions::create(tx, &vault, definition.clone(), &headers)).await?;
    // The secret is shown once, here, as the hosted interface does; it is not kept (the local
    // service signs nothing).
    let definition =
        HttpRequestDefinition { signing_secret: Some(format!("whsec_{}", uuid::Uuid::new_v4().simple())), ..stored };
    Ok(created(&definition))
}

/// Update an HTTP request definition: the members given replace the stored ones (`headers`
/// as a whole). A header sent back masked, as reads show it, keeps the value stored under its
/// name, so a definition read, edited and put back keeps its secrets.
#[utoipa::path(
    put,
    path = "/v1/http-request-definition/{id}",
    operation_id = "updateHttpRequestDefinition",
    tag = "HTTP Request Definition",
    params(("id" = Uuid, Path, description = "The definition's id")),
    request_body = HttpRequestDefinitionUpdate,
    responses(
        (status = 200, description = "The updated definition", body = Data<HttpRequestDefinition>),
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        PayloadTooLarge,
        TooManyRequests,
        InternalError,
    )
)]
async fn update_definition(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Valid(update): Valid<HttpRequestDefinitionUpdate>,
) -> ServiceResult<Response> {
    let id = path_id(Kind::HttpRequestDefinition, &id)?.to_string();
    let vault = state.store.vault();
    let definition = state.store.write(move |tx| request_definitions::update(tx, &vault, &id, update.clone())).await?;
    Ok(data(&definition))
}
