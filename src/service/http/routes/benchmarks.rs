//! Benchmarks: suites, targets of a suite, and score samples (offset paging, one cell at a time).

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::data;
use crate::api::model::*;
use crate::api::validate::{Checks, Validate};
use crate::service::AppState;
use crate::service::http::error::{ServiceError, ServiceResult};
use crate::service::http::extract::Params;
use crate::service::http::openapi::{BadRequest, InternalError, NotFound, TooManyRequests, Unauthorized};
use crate::service::store::{self, Kind};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(suites)).routes(routes!(targets)).routes(routes!(samples))
}

/// List benchmark suites: every suite with published results, and the version other operations default to.
#[utoipa::path(
    get,
    path = "/v1/benchmark/suite",
    operation_id = "listBenchmarkSuites",
    tag = "Benchmark",
    responses(
        (status = 200, description = "Every suite with published results", body = Data<Vec<SuiteEntry>>),
        Unauthorized,
        TooManyRequests,
        InternalError,
    )
)]
async fn suites(State(state): State<AppState>) -> ServiceResult<Response> {
    let suites: Vec<SuiteEntry> = state.store.read(|c| store::all(c, Kind::BenchmarkSuite)).await?;
    Ok(data(&suites))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct SuiteParams {
    /// The suite; list them with `GET /v1/benchmark/suite`.
    #[param(value_type = String, required = true, min_length = 1)]
    suite: Option<String>,
}

impl Validate for SuiteParams {
    fn check(&self, c: &mut Checks, at: &str) {
        c.required(at, "suite", &self.suite);
        c.length(at, "suite", self.suite.as_deref(), 1, None);
    }
}

/// List the targets of a suite's latest version.
#[utoipa::path(
    get,
    path = "/v1/benchmark/target",
    operation_id = "listBenchmarkTargets",
    tag = "Benchmark",
    params(SuiteParams),
    responses(
        (status = 200, description = "The suite's targets", body = Data<Vec<Target>>),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn targets(State(state): State<AppState>, Params(q): Params<SuiteParams>) -> ServiceResult<Response> {
    let suite = q.suite.unwrap_or_default();
    let targets = state
        .store
        .read(move |c| -> ServiceResult<_> {
            require_suite(c, &suite)?;
            let all: Vec<Target> = store::all(c, Kind::BenchmarkTarget)?;
            Ok(all.into_iter().filter(|t| t.suite.as_deref() == Some(suite.as_str())).collect::<Vec<_>>())
        })
        .await?;
    Ok(data(&targets))
}

fn require_suite(conn: &crate::service::store::Conn, suite: &str) -> ServiceResult<SuiteEntry> {
    store::get(conn, Kind::BenchmarkSuite, suite)?.ok_or_else(|| ServiceError::not_found("benchmark suite", suite))
}

/// List the score samples of a target: the scorer's reasoning per sampled call (offset paging).
#[utoipa::path(
    get,
    path = "/v1/benchmark/target/{key}/score-sample",
    operation_id = "listScoreSamples",
    tag = "Benchmark",
    params(("key" = String, Path, description = "The target's key"), ScoreSampleQuery),
    responses(
        (status = 200, description = "One page of samples, with the target", body = ScoreSamplePage),
        BadRequest,
        Unauthorized,
        NotFound,
        TooManyRequests,
        InternalError,
    )
)]
async fn samples(
    State(state): State<AppState>,
    Path(key): Path<String>,
    Params(q): Params<ScoreSampleQuery>,
) -> ServiceResult<Response> {
    let body = state
        .store
        .read(move |c| -> ServiceResult<_> {
            let suite = q.suite.clone().unwrap_or_default();
            let entry = require_suite(c, &suite)?;
            let version = q.suite_version.clone().or(entry.latest_suite_version).unwrap_or_default();
            let targets: Vec<Target> = store::all(c, Kind::BenchmarkTarget)?;
            let target = targets
                .into_iter()
                .find(|t| {
                    t.target_key == key
                        && t.suite.as_deref() == Some(&suite)
                        && t.suite_version.as_deref() == Some(&version)
                })
                .ok_or_else(|| ServiceError::not_found("benchmark target", &format!("{key} in {suite} {version}")))?;
            let limit = q.limit.unwrap_or(benchmark_limits::LIMIT_DEFAULT);
            let offset = q.offset.unwrap_or(0);
            let sample_key = store::scores::SampleKey {
                target_key: &key,
                suite: &suite,
                suite_version: &version,
                condition_key: q.condition_key.as_deref(),
                metric_key: q.metric_key.as_deref(),
            };
            let (bodies, total) = store::scores::page(c, &sample_key, limit, offset)?;
            let samples = bodies
                .iter()
                .map(|b| Ok(serde_json::from_str::<ScoreSample>(b)?))
                .collect::<ServiceResult<Vec<_>>>()?;
            let has_more = offset as u64 + (samples.len() as u64) < total;
            Ok(ScoreSamplePage {
                data: samples,
                target: Some(target),
                pagination: OffsetPagination { limit: limit as u64, offset: offset as u64, total, has_more },
            })
        })
        .await?;
    Ok(axum::response::IntoResponse::into_response(axum::Json(body)))
}
