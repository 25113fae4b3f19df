//! The one error answer of every route: a status, a stable [`ErrorCode`] and a public message,
//! sent as `{"error": {"code", "message"}}`. Internal and store failures carry the log reference
//! of [`crate::errors::public`] instead of their detail (ERR-1). Handlers return
//! `Result<Response, ApiError>` and use `?`.

use crate::auth::AuthStoreError;
use crate::store::StoreError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use protocol::ErrorCode;
use serde_json::json;
use std::fmt::Display;

/// An error answer: what the client is told, and the headers that go with it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    /// `Retry-After`, in seconds.
    retry_after: Option<u64>,
    /// `Connection: close`: the rest of a body that was not read must not be taken for the next
    /// request.
    close: bool,
}

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
            close: false,
        }
    }

    /// 400 `invalid`.
    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Invalid, message)
    }

    /// 401 `unauthorized`.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
    }

    /// 403 `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
    }

    /// 429 `rate_limited`.
    pub fn rate_limited(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            message,
        )
    }

    /// 500 `internal`: `what` happened, and a log reference to `detail` (ERR-1).
    pub fn internal(what: &str, detail: &dyn Display) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            crate::errors::public(what, detail),
        )
    }

    /// 503 with the store's code (`store_unavailable`): what happened and a log reference
    /// (ERR-1), never the store's own text.
    pub fn store(e: &StoreError) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            e.code(),
            crate::errors::public(e.public_message(), e),
        )
    }

    /// 503 `store_unavailable` for the account store, with a log reference (ERR-1).
    pub fn account_store(e: &AuthStoreError) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::StoreUnavailable,
            crate::errors::public("the account store is unavailable; try again shortly", e),
        )
    }

    /// The same answer with `Retry-After: secs`.
    pub fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after = Some(secs);
        self
    }

    /// The same answer, after which the connection closes.
    pub fn closing(mut self) -> ApiError {
        self.close = true;
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        let mut r = (self.status, axum::Json(body)).into_response();
        let h = r.headers_mut();
        if let Some(secs) = self.retry_after {
            h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.close {
            h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        r
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::store(&e)
    }
}

impl From<AuthStoreError> for ApiError {
    fn from(e: AuthStoreError) -> ApiError {
        ApiError::account_store(&e)
    }
}

/// A quota refusal (QUOTA-n): 403 `limit_exceeded`, or 503 when a store could not be asked.
impl From<crate::quota::Refused> for ApiError {
    fn from(e: crate::quota::Refused) -> ApiError {
        ApiError::new(e.status(), e.code(), e.to_string())
    }
}

/// A drawing that was not made (EXPORT-12): 503 `busy` (with `Retry-After`) or
/// `shutting_down`, 422 `too_large`, 500 `internal`.
impl From<crate::drawing::Refused> for ApiError {
    fn from(e: crate::drawing::Refused) -> ApiError {
        use crate::drawing::Refused;
        let message = e.to_string();
        match e {
            Refused::ShuttingDown => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::ShuttingDown,
                message,
            ),
            Refused::Busy(_) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy, message)
                    .retry_after(crate::drawing::RETRY_AFTER_SECS)
            }
            Refused::TooLarge { .. } => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::TooLarge,
                message,
            ),
            Refused::Failed(_) => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                message,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(r: Response) -> serde_json::Value {
        let bytes = axum::body::to_bytes(r.into_body(), 4096).await.unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    /// ERR-1: an internal failure tells the client what happened and a reference, in the JSON
    /// shape of every error; the detail stays in the log.
    #[tokio::test]
    async fn err_1_an_internal_error_answers_the_json_shape_with_a_reference() {
        let e = ApiError::internal("internal error", &"panic at /src/secret.rs:12");
        let r = e.into_response();
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let v = body_of(r).await;
        assert_eq!(v["error"]["code"], "internal");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.starts_with("internal error (ref "), "{m}");
        assert!(!m.contains("secret.rs"), "{m}");
        assert_eq!(v.as_object().unwrap().len(), 1);
        assert_eq!(v["error"].as_object().unwrap().len(), 2);
    }

    /// NET-5, NET-8: the extra headers of an answer go out with it.
    #[tokio::test]
    async fn net_8_retry_after_and_close_headers() {
        let r = ApiError::rate_limited("wait")
            .retry_after(7)
            .closing()
            .into_response();
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(r.headers()[header::RETRY_AFTER], "7");
        assert_eq!(r.headers()[header::CONNECTION], "close");
        let plain = ApiError::invalid("x").into_response();
        assert!(plain.headers().get(header::RETRY_AFTER).is_none());
        assert!(plain.headers().get(header::CONNECTION).is_none());
        assert_eq!(body_of(plain).await["error"]["code"], "invalid");
    }

    /// EXPORT-12: a drawing refused for its memory is 422 `too_large` and says the sizes; one
    /// without a turn is 503 `busy` with `Retry-After`.
    #[tokio::test]
    async fn export_12_drawing_refusals_answer_their_status_and_code() {
        use crate::drawing::Refused;
        let mib = 1 << 20;
        let big = Refused::TooLarge {
            what: "a PNG at this scale",
            bytes: 300 * mib,
            max: 256 * mib,
        };
        let r = ApiError::from(big).into_response();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let v = body_of(r).await;
        assert_eq!(v["error"]["code"], "too_large");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(
            m.contains(
                "as a PNG at this scale: it would take about 300 MiB, at most 256 MiB are allowed;"
            ),
            "{m}"
        );
        let r = ApiError::from(Refused::Busy("other drawings are running")).into_response();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
        assert_eq!(body_of(r).await["error"]["code"], "busy");
    }
}
