//! The HTTP routes: the embedded page, and a JSON API under `/api/`.

use crate::datasets::{self, Filter};
use crate::play::{NewGame, PlayState, Session};
use crate::replay::{self, ReplayQuery, View};
use crate::{dashboards, ApiError, AppState};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use junqi_selfplay::SAMPLES_DIR;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

type Shared = State<Arc<AppState>>;
type ApiResult<T> = Result<Json<T>, ApiError>;

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

pub(crate) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }))
        .route("/api/board", get(|| async { Json(crate::board::geometry()) }))
        .route("/api/datasets", get(list_datasets))
        .route("/api/games", get(list_games))
        .route("/api/game", get(one_game))
        .route("/api/runs", get(list_runs))
        .route("/api/run", get(one_run))
        .route("/api/run/file", get(run_file))
        .route("/api/play", post(new_game))
        .route("/api/play/{id}", get(play_state))
        .route("/api/play/{id}/move", post(play_move))
        .route("/api/play/{id}/deploy", post(play_deploy))
        .route("/api/play/{id}/shuffle", post(play_shuffle))
        .route("/api/play/{id}/resign", post(play_resign))
        .route("/api/play/{id}/record", get(play_record))
        .fallback(|| async { ApiError::not_found("no such page") })
        .with_state(state)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// Run blocking work (reading Parquet, a bot thinking) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: format!("{e}") }))
}

async fn list_datasets(State(s): Shared) -> ApiResult<Vec<datasets::DatasetInfo>> {
    blocking(move || Ok(datasets::discover(&s.roots))).await.map(Json)
}

/// The dataset's name and the filter are two views of one query string.
async fn list_games(
    State(s): Shared,
    Query(q): Query<RunQuery>,
    Query(filter): Query<Filter>,
) -> ApiResult<datasets::GameList> {
    blocking(move || {
        let dir = datasets::resolve(&s.roots, &q.d)?;
        let data = s.datasets.dataset(&dir)?;
        datasets::list(&data, &filter)
    })
    .await
    .map(Json)
}

async fn one_game(State(s): Shared, Query(q): Query<ReplayQuery>) -> Result<Response, ApiError> {
    let text = blocking(move || {
        let view_name = q.view.as_deref().unwrap_or("all");
        let view: View = view_name.parse()?;
        let dir = datasets::resolve(&s.roots, &q.d)?;
        s.datasets.answer(&dir, q.id, view_name, |data| {
            let k = data
                .games
                .binary_search_by_key(&q.id, |g| g.game_id)
                .map_err(|_| ApiError::not_found(format!("no game {} in `{}`", q.id, q.d)))?;
            let mut r = replay::replay(&data.games[k], view, data.variants[k].clone());
            // The samples shard named as the game's games shard.
            if let Some(name) = data.shard_of(q.id).and_then(Path::file_name) {
                if let Some(rows) = s.datasets.samples(&dir.join(SAMPLES_DIR).join(name))? {
                    r.samples = replay::samples(rows.get(&q.id).map_or(&[][..], Vec::as_slice), view);
                }
            }
            Ok(serde_json::to_string(&r).expect("replays serialise"))
        })
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], text.as_str().to_owned()).into_response())
}

async fn list_runs(State(s): Shared) -> ApiResult<Vec<dashboards::RunInfo>> {
    blocking(move || Ok(dashboards::discover(&s.roots))).await.map(Json)
}

#[derive(Deserialize)]
struct RunQuery {
    d: String,
}

async fn one_run(State(s): Shared, Query(q): Query<RunQuery>) -> ApiResult<dashboards::RunReport> {
    blocking(move || {
        let dir = datasets::resolve(&s.roots, &q.d)?;
        dashboards::report(&q.d, &dir)
    })
    .await
    .map(Json)
}

#[derive(Deserialize)]
struct FileQuery {
    d: String,
    name: String,
}

/// A run's SVG chart as an image.
async fn run_file(State(s): Shared, Query(q): Query<FileQuery>) -> Result<Response, ApiError> {
    let dir = datasets::resolve(&s.roots, &q.d)?;
    let report = blocking(move || dashboards::report(&q.d, &dir)).await?;
    let file = report
        .files
        .into_iter()
        .find(|f| f.name == q.name && f.format == "svg")
        .ok_or_else(|| ApiError::not_found(format!("no chart `{}` in the run", q.name)))?;
    let text = file.text.ok_or_else(|| ApiError::unreadable("the chart is too large to send"))?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml"), (header::CACHE_CONTROL, "no-cache")], text).into_response())
}

async fn new_game(State(s): Shared, Json(req): Json<NewGame>) -> ApiResult<PlayState> {
    blocking(move || {
        let session = Session::new(&req)?;
        let (_, game) = s.games.insert(session);
        let mut g = game.lock().expect("game lock");
        g.bot_moves()?;
        Ok(g.state())
    })
    .await
    .map(Json)
}

/// Run `f` on game `id` (locked) and answer with its state.
async fn with_game(
    s: Arc<AppState>,
    id: u64,
    f: impl FnOnce(&mut Session) -> Result<(), ApiError> + Send + 'static,
) -> ApiResult<PlayState> {
    blocking(move || {
        let game = s.games.get(id)?;
        let mut g = game.lock().map_err(|_| ApiError::conflict("this game was broken by an earlier error"))?;
        f(&mut g)?;
        Ok(g.state())
    })
    .await
    .map(Json)
}

async fn play_state(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<PlayState> {
    with_game(s, id, |_| Ok(())).await
}

#[derive(Deserialize)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

async fn play_move(State(s): Shared, UrlPath(id): UrlPath<u64>, Json(body): Json<MoveBody>) -> ApiResult<PlayState> {
    with_game(s, id, move |g| g.play(&body.mv)).await
}

#[derive(Deserialize)]
struct DeployBody {
    /// Square name to kind letter, for all 25 pieces.
    placement: HashMap<String, String>,
}

async fn play_deploy(
    State(s): Shared,
    UrlPath(id): UrlPath<u64>,
    Json(body): Json<DeployBody>,
) -> ApiResult<PlayState> {
    with_game(s, id, move |g| {
        g.deploy(&body.placement)?;
        g.bot_moves()
    })
    .await
}

async fn play_shuffle(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<PlayState> {
    with_game(s, id, |g| g.shuffle()).await
}

async fn play_resign(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<PlayState> {
    with_game(s, id, |g| g.resign()).await
}

async fn play_record(State(s): Shared, UrlPath(id): UrlPath<u64>) -> Result<Response, ApiError> {
    let text = blocking(move || {
        let game = s.games.get(id)?;
        let g = game.lock().map_err(|_| ApiError::conflict("this game was broken by an earlier error"))?;
        g.record()
    })
    .await?;
    let disposition = format!("attachment; filename=\"junqi-game-{id}.jgn\"");
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, disposition)],
        text,
    )
        .into_response())
}
