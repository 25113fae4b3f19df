//! The WebSocket close codes the server sends, defined once (the table in docs/SPEC.md's
//! vocabulary). 1000-1013 are the RFC 6455 codes in their usual meaning; 4000-4999 are the
//! board protocol's own.

/// The client said goodbye, and so does the server.
pub const NORMAL: u16 = 1000;
/// The server shuts down (LIVE-3).
pub const GOING_AWAY: u16 = 1001;
/// A text frame that is not UTF-8 (WIRE-5).
pub const BAD_DATA: u16 = 1007;
/// A protocol violation: no `hello` first, a bad `hello`, the idle timeout (AUTH-15, LIVE-2).
pub const POLICY: u16 = 1008;
/// A frame over the socket's hard size limit (LIM-1).
pub const TOO_BIG: u16 = 1009;
/// Service restart: the node holding the board hands it over, stops or is fenced; reconnect at
/// once and resume with `since` (CLUSTER).
pub const SERVICE_RESTART: u16 = 1012;
/// Try again later: the board is full, restarting or its store unavailable (LIM-4).
pub const TRY_AGAIN: u16 = 1013;
/// No valid credential, or the credential ended: expired, signed out (AUTH-4, AUTH-18, AUTH-19).
pub const UNAUTHORIZED: u16 = 4001;
/// No role on the board, or the role was revoked (AUTH-4, AUTH-9, AUTH-12, AUTH-20).
pub const FORBIDDEN: u16 = 4003;
/// The board was deleted (AUTH-12).
pub const DELETED: u16 = 4004;
/// Too slow: the outbox filled; resume with `since` (LIM-6, LIM-7).
pub const SLOW: u16 = 4008;
/// The board state changed under the client (a store failure rolled back what it saw): resync.
pub const RESYNC: u16 = 4009;
