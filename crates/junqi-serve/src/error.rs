//! Errors as the page sees them: a status and one line of JSON
//! (`{"error": "…"}`), also written to the server's log.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A request that could not be answered.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    /// The request itself is wrong (a bad parameter, an illegal move).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: message.into() }
    }
    /// What it names is not there (a dataset, a game id, a game session).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, message: message.into() }
    }
    /// What it names is there but cannot be read (a damaged dataset).
    pub fn unreadable(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::UNPROCESSABLE_ENTITY, message: message.into() }
    }
    /// A request that conflicts with the game's state (a move out of turn).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::CONFLICT, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        eprintln!("error {}: {}", self.status.as_u16(), self.message);
        (self.status, axum::Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}
