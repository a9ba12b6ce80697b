//! The HTTP routes: the embedded page, and a JSON API under `/api/`.

use crate::datasets::{self, Filter};
use crate::play::{NewGame, PlayState, Session};
use crate::replay::{self, ReplayQuery, View};
use crate::siguo::{NewSiguoGame, SiguoSession, SiguoState};
use crate::siguo_replay;
use crate::{dashboards, ApiError, AppState};
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use junqi_selfplay::SAMPLES_DIR;
use serde::de::DeserializeOwned;
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
        .route("/api/variants", get(|| async { Json(crate::variants::list()) }))
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
        .route("/api/play/{id}/bot", post(play_bot))
        .route("/api/play/{id}/record", get(play_record))
        .route("/api/siguo/board", get(|| async { Json(crate::siguo::geometry()) }))
        .route("/api/siguo/game", get(siguo_stored_game))
        .route("/api/play/siguo", post(siguo_new))
        .route("/api/play/siguo/{id}", get(siguo_state))
        .route("/api/play/siguo/{id}/move", post(siguo_move))
        .route("/api/play/siguo/{id}/bot", post(siguo_bot))
        .route("/api/play/siguo/{id}/resign", post(siguo_resign))
        .route("/api/play/siguo/{id}/deploy", post(siguo_deploy))
        .route("/api/play/siguo/{id}/shuffle", post(siguo_shuffle))
        .route("/api/play/siguo/{id}/record", get(siguo_record))
        .fallback(|| async { ApiError::not_found("no such page") })
        // After the routes: it applies to those already added.
        .method_not_allowed_fallback(|method: Method, uri: Uri| async move {
            ApiError {
                status: StatusCode::METHOD_NOT_ALLOWED,
                message: format!("{method} {}: not a method this address takes", uri.path()),
            }
        })
        .layer(middleware::from_fn(local_host_only))
        .with_state(state)
}

/// Refuse a request whose `Host` is a name other than `localhost`: a page
/// elsewhere cannot reach this server through a name of its own that it
/// points at 127.0.0.1 (DNS rebinding). IP addresses are accepted as given.
async fn local_host_only(req: Request, next: Next) -> Response {
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if host_allowed(host) {
        next.run(req).await
    } else {
        ApiError {
            status: StatusCode::FORBIDDEN,
            message: format!("host `{host}`: open this page by localhost or an IP address"),
        }
        .into_response()
    }
}

fn host_allowed(host: &str) -> bool {
    // Drop a port; a bracketed IPv6 address keeps its colons.
    let name = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(':') => h,
        _ => host,
    };
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    name.eq_ignore_ascii_case("localhost") || bare.parse::<std::net::IpAddr>().is_ok()
}

/// Query, path and JSON body extractors whose rejections are [`ApiError`]s
/// (the page's JSON error, logged), not axum's plain text.
struct Query<T>(T);
struct UrlPath<T>(T);
struct Body<T>(T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(|e| ApiError { status: e.status(), message: e.body_text() })
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for UrlPath<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| UrlPath(p.0))
            .map_err(|e| ApiError { status: e.status(), message: e.body_text() })
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        Json::<T>::from_request(req, state)
            .await
            .map(|j| Body(j.0))
            .map_err(|e| ApiError { status: e.status(), message: e.body_text() })
    }
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
            if data.players == 4 {
                return Err(ApiError::bad_request(format!(
                    "`{}` is a four-player dataset: its games replay at /api/siguo/game",
                    q.d
                )));
            }
            let k = data
                .games
                .binary_search_by_key(&q.id, |g| g.game_id)
                .map_err(|_| ApiError::not_found(format!("no game {} in `{}`", q.id, q.d)))?;
            let mut r = replay::replay(&data.games[k], view, data.variants[k].clone());
            // The samples shard named as the game's games shard.
            // A samples shard that cannot be read leaves the game viewable.
            if let Some(name) = data.shard_of(q.id).and_then(Path::file_name) {
                match s.datasets.samples(&dir.join(SAMPLES_DIR).join(name)) {
                    Ok(Some(rows)) => r.samples = replay::samples(rows.get(&q.id).map_or(&[][..], Vec::as_slice), view),
                    Ok(None) => {}
                    Err(e) => r.samples_error = Some(e.message),
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
        let mut report = dashboards::report(&q.d, &dir)?;
        report.live = dashboards::live(&dir, &report.kind, &s.datasets);
        Ok(report)
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
    // A chart is a picture: no script in it runs.
    let headers = [
        (header::CONTENT_TYPE, "image/svg+xml"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'"),
    ];
    Ok((headers, text).into_response())
}

async fn new_game(State(s): Shared, Body(req): Body<NewGame>) -> ApiResult<PlayState> {
    blocking(move || {
        let session = Session::new_timed(&req, s.allow_engines, s.tc.as_deref())?;
        let (_, game) = s.games.insert(session);
        let mut g = game.lock().expect("game lock");
        if !req.bot_later {
            g.bot_moves();
        }
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

/// The game's state; a person whose clock has run out has lost on time.
async fn play_state(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<PlayState> {
    with_game(s, id, |g| {
        g.check_time();
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
    /// Leave the bot's reply to `POST /api/play/N/bot`.
    #[serde(default)]
    bot_later: bool,
}

async fn play_move(State(s): Shared, UrlPath(id): UrlPath<u64>, Body(body): Body<MoveBody>) -> ApiResult<PlayState> {
    with_game(s, id, move |g| g.play(&body.mv, body.bot_later)).await
}

/// The bot plays until it is the person's turn or the game is over (nothing
/// when it is not the bot's turn).
async fn play_bot(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<PlayState> {
    with_game(s, id, |g| {
        g.bot_moves();
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
struct DeployBody {
    /// Square name to kind letter, for all 25 pieces.
    placement: HashMap<String, String>,
    /// Leave the bot's first move to `POST /api/play/N/bot`.
    #[serde(default)]
    bot_later: bool,
}

async fn play_deploy(
    State(s): Shared,
    UrlPath(id): UrlPath<u64>,
    Body(body): Body<DeployBody>,
) -> ApiResult<PlayState> {
    with_game(s, id, move |g| {
        g.deploy(&body.placement)?;
        if !body.bot_later {
            g.bot_moves();
        }
        Ok(())
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
    Ok(record_download(text, &format!("junqi-game-{id}.jgn")))
}

/// A game record as a file to save, named `file_name`.
fn record_download(text: String, file_name: &str) -> Response {
    let disposition = format!("attachment; filename=\"{file_name}\"");
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, disposition)],
        text,
    )
        .into_response()
}

/// A new four-player game: the person's seat view, after the bots' first
/// moves unless `bot_later`.
async fn siguo_new(State(s): Shared, Body(req): Body<NewSiguoGame>) -> ApiResult<SiguoState> {
    blocking(move || {
        let g = SiguoSession::new_timed(&req, s.tc.as_deref())?;
        let (_, game) = s.siguo.insert(g);
        let mut g = game.lock().map_err(|_| ApiError::conflict("this game was broken by an earlier error"))?;
        if !req.bot_later {
            g.bot_moves();
        }
        Ok(g.state())
    })
    .await
    .map(Json)
}

/// A stored four-player game step by step, as the referee or one seat saw it.
async fn siguo_stored_game(
    State(s): Shared,
    Query(q): Query<siguo_replay::SiguoReplayQuery>,
) -> Result<Response, ApiError> {
    let text = blocking(move || {
        let view = siguo_replay::parse_view(q.view.as_deref())?;
        let dir = datasets::resolve(&s.roots, &q.d)?;
        let view_name = format!("siguo:{}", q.view.as_deref().unwrap_or("all"));
        s.datasets.answer(&dir, q.id, &view_name, |data| {
            if data.players != 4 {
                return Err(ApiError::bad_request(format!(
                    "`{}` is a two-player dataset: its games replay at /api/game",
                    q.d
                )));
            }
            let r = siguo_replay::replay_stored(siguo_replay::find(data, q.id)?, view)?;
            Ok(serde_json::to_string(&r).expect("replays serialise"))
        })
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], text.as_str().to_owned()).into_response())
}

/// Run `f` on four-player game `id` (locked) and answer with the person's view.
async fn with_siguo(
    s: Arc<AppState>,
    id: u64,
    f: impl FnOnce(&mut SiguoSession) -> Result<(), ApiError> + Send + 'static,
) -> ApiResult<SiguoState> {
    blocking(move || {
        let game = s.siguo.get(id)?;
        let mut g = game.lock().map_err(|_| ApiError::conflict("this game was broken by an earlier error"))?;
        f(&mut g)?;
        Ok(g.state())
    })
    .await
    .map(Json)
}

async fn siguo_state(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<SiguoState> {
    with_siguo(s, id, |_| Ok(())).await
}

async fn siguo_move(State(s): Shared, UrlPath(id): UrlPath<u64>, Body(body): Body<MoveBody>) -> ApiResult<SiguoState> {
    with_siguo(s, id, move |g| g.play(&body.mv, body.bot_later)).await
}

/// The bots play until it is the person's turn or the game is over.
async fn siguo_bot(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<SiguoState> {
    with_siguo(s, id, |g| {
        g.bot_moves();
        Ok(())
    })
    .await
}

async fn siguo_resign(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<SiguoState> {
    with_siguo(s, id, |g| g.resign()).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SiguoDeployBody {
    /// Node of the person's zone to kind letter, for all 25 pieces; left
    /// out: the deployment proposed.
    #[serde(default)]
    placement: Option<HashMap<String, String>>,
    /// Leave the bots' first moves to `POST /api/play/siguo/N/bot`.
    #[serde(default)]
    bot_later: bool,
}

/// The person's deployment; the game starts (and the bots move first
/// unless `bot_later`).
async fn siguo_deploy(
    State(s): Shared,
    UrlPath(id): UrlPath<u64>,
    Body(body): Body<SiguoDeployBody>,
) -> ApiResult<SiguoState> {
    with_siguo(s, id, move |g| {
        g.deploy(body.placement.as_ref())?;
        if !body.bot_later {
            g.bot_moves();
        }
        Ok(())
    })
    .await
}

async fn siguo_shuffle(State(s): Shared, UrlPath(id): UrlPath<u64>) -> ApiResult<SiguoState> {
    with_siguo(s, id, |g| g.shuffle()).await
}

async fn siguo_record(State(s): Shared, UrlPath(id): UrlPath<u64>) -> Result<Response, ApiError> {
    let text = blocking(move || {
        let game = s.siguo.get(id)?;
        let g = game.lock().map_err(|_| ApiError::conflict("this game was broken by an earlier error"))?;
        g.record()
    })
    .await?;
    Ok(record_download(text, &format!("junqi-siguo-game-{id}.jgn")))
}

#[cfg(test)]
mod tests {
    use super::host_allowed;

    #[test]
    fn only_localhost_and_ip_addresses_are_accepted_as_hosts() {
        for ok in ["localhost", "localhost:8080", "127.0.0.1:1", "[::1]:80", "[::1]", "10.0.0.2", "LOCALHOST"] {
            assert!(host_allowed(ok), "{ok}");
        }
        for bad in ["", "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil:80"] {
            assert!(!host_allowed(bad), "{bad}");
        }
    }
}
