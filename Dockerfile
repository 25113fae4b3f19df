# Board server image: the `server` binary, plus `loadtest` for the compose load-test profile.
#
#   docker build -t board-server .
#   docker run -p 8080:8080 -v board-data:/data board-server            # SQLite under /data
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... board-server  # PostgreSQL

# ---- build ---------------------------------------------------------------------------------
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
# The cache mounts keep the registry and the target directory between builds (BuildKit); the
# binaries are copied out in the same step because the mounted target dir is not in the layer.
# The release profile keeps line tables for profiling (`debug = 1`); the image drops them (the
# server from ~150 MB to ~27 MB) and keeps the symbols, so a backtrace still names functions.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p server -p loadtest \
    && install -D -m 0755 target/release/server /out/server \
    && install -D -m 0755 target/release/loadtest /out/loadtest \
    && strip --strip-debug /out/server /out/loadtest

# ---- runtime -------------------------------------------------------------------------------
FROM debian:bookworm-slim
# curl is only for the health check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 board \
    && useradd --system --uid 10001 --gid board --home-dir /data --shell /usr/sbin/nologin board \
    && install -d -o board -g board -m 0750 /data
COPY --from=build /out/server /out/loadtest /usr/local/bin/

# Listen on every interface inside the container; SQLite lives in the /data volume unless
# DATABASE_URL points the server at PostgreSQL.
ENV BOARD_LISTEN=0.0.0.0:8080 \
    BOARD_DATA_DIR=/data \
    RUST_LOG=info
USER board
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
# The server exits cleanly on SIGTERM (docker stop) after flushing its store.
STOPSIGNAL SIGTERM
CMD ["server"]
