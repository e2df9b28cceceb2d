//! Runs jobs in child processes, several at once, each with a hard deadline.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::process::Command;
use tokio::sync::Semaphore;

use crate::job::Job;
use crate::results::{FileReport, from_child_output};

/// How long after a job's own deadline its process is killed: the child calls the harness's
/// `timeout()` at the deadline and gets a grace period to report.
pub const KILL_AFTER: Duration = Duration::from_secs(5);

/// Runs every job with at most `parallel` at once; `progress` is called as each finishes.
pub async fn run_all(
    exe: PathBuf,
    jobs: Vec<Job>,
    parallel: usize,
    mut progress: impl FnMut(&FileReport, usize, usize),
) -> Vec<FileReport> {
    let total = jobs.len();
    let limit = Arc::new(Semaphore::new(parallel.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (index, job) in jobs.into_iter().enumerate() {
        let limit = limit.clone();
        let exe = exe.clone();
        set.spawn(async move {
            let _permit = limit.acquire_owned().await;
            (index, run_job(&exe, &job).await)
        });
    }
    let mut done: Vec<(usize, FileReport)> = Vec::with_capacity(total);
    while let Some(joined) = set.join_next().await {
        if let Ok((index, report)) = joined {
            progress(&report, done.len() + 1, total);
            done.push((index, report));
        }
    }
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Runs one job in `exe run-one`, killing it `KILL_AFTER` past its deadline.
pub async fn run_job(exe: &std::path::Path, job: &Job) -> FileReport {
    let path = job
        .id
        .split(['?', '#'])
        .next()
        .unwrap_or(&job.id)
        .to_owned();
    let started = Instant::now();
    let json = serde_json::to_string(job).unwrap_or_default();
    let spawned = Command::new(exe)
        .arg("run-one")
        .arg(json)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return from_child_output(
                &job.id,
                &path,
                job.scope,
                "",
                &format!("cannot start {}: {e}", exe.display()),
                false,
                0,
            );
        }
    };
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_task = tokio::spawn(async move {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut buf).await;
        }
        buf
    });
    let err_task = tokio::spawn(async move {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut buf).await;
        }
        buf
    });
    let hard = Duration::from_millis(job.timeout_ms) + KILL_AFTER;
    let killed = tokio::select! {
        _ = child.wait() => false,
        _ = tokio::time::sleep(hard) => {
            let _ = child.kill().await;
            true
        }
    };
    let out = out_task.await.unwrap_or_default();
    let err = err_task.await.unwrap_or_default();
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    from_child_output(
        &job.id,
        &path,
        job.scope,
        &String::from_utf8_lossy(&out),
        &String::from_utf8_lossy(&err),
        killed,
        ms,
    )
}
