//! `server`: serves the board server until SIGINT or SIGTERM.

use clap::Parser;
use server::Config;

/// mimalloc instead of glibc's malloc: frames are built on a board's arbiter thread and freed on
/// the connection's tokio worker, and glibc's per-arena locking and consolidation on those
/// cross-thread frees cost ~10 % of the server's CPU under fan-out load (measured when it was
/// chosen; the run is in the git history of docs/BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    // Logs go to stderr: stdout carries only the lines people and scripts read (CLI-2).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let config = Config::parse();
    // Every socket is a descriptor: run with as many as the hard limit allows (NET-1).
    match server::net::raise_fd_limit() {
        Ok(n) => tracing::info!(open_files = n, "open-file limit"),
        Err(e) => tracing::warn!(error = %e, "could not raise the open-file limit"),
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("board-io")
        // The blocking pool runs SQLite calls, which queue on one connection anyway; hundreds of
        // threads parked on its lock (a thousand boards loading or snapshotting at once) would
        // only cost stacks, malloc arenas and lock hand-offs.
        .max_blocking_threads(16)
        .build()?;
    rt.block_on(async move {
        if let Some(server::config::Command::LoginLink { name }) = &config.command {
            return server::print_login_link(&config, name.as_deref()).await;
        }
        let listener = tokio::net::TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        // A configuration the server refuses is said before any "listening on" (CLI-2).
        config.check(addr).map_err(anyhow::Error::msg)?;
        // Machine-readable line for scripts and tests that start the binary on port 0.
        println!("listening on {addr}");
        server::run(listener, config, shutdown_signal()).await
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
