//! Accidents at the command line (issue #16): pipes, signals, file-size
//! limits, `convert X -o X`, unclear errors. Each failed before its fix.

mod common;

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_slog2")
}

fn samples() -> PathBuf {
    common::fixture("trace-sample")
}

fn print_of(p: &Path) -> String {
    let o = Command::new(bin()).arg("print").arg(p).output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

/// `cat t.txt | slog2 convert /dev/stdin` lost the first record.
#[test]
fn stdin_pipe_converts_every_record() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.slog2");
    let piped = dir.path().join("piped.slog2");
    let data = samples().join("data.txt");
    let st = Command::new(bin())
        .args(["convert", "-q"])
        .arg(&data)
        .arg("-o")
        .arg(&direct)
        .status()
        .unwrap();
    assert!(st.success());
    let mut child = Command::new(bin())
        .args(["convert", "-q", "/dev/stdin", "-o"])
        .arg(&piped)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&data).unwrap())
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(print_of(&direct), print_of(&piped));
}

/// `slog2 convert X -o X` replaced the input with its conversion.
#[test]
fn convert_onto_its_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.slog2");
    std::fs::copy(samples().join("data.shipped.slog2"), &x).unwrap();
    let before = std::fs::read(&x).unwrap();
    let o = Command::new(bin())
        .args(["convert", "-q"])
        .arg(&x)
        .arg("-o")
        .arg(&x)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is the input file"), "{err}");
    assert_eq!(std::fs::read(&x).unwrap(), before);
    assert_eq!(slog2_dev::names(dir.path()), vec!["x.slog2"]);
}

/// Start a conversion that blocks reading a FIFO after its first records,
/// with its temporary file in place; returns the child and the FIFO's
/// write end (kept open so the conversion waits).
fn blocked_conversion(dir: &Path, out: &Path) -> (std::process::Child, std::fs::File) {
    let fifo = dir.join("in.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut cmd = Command::new(bin());
    cmd.args(["convert", "-q"]).arg(&fifo).arg("-o").arg(out);
    // SAFETY: setrlimit is async-signal-safe. No core file from the
    // signals whose default action dumps one (QUIT, XCPU).
    unsafe {
        cmd.pre_exec(|| {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let text = std::fs::read(samples().join("data.txt")).unwrap();
    w.write_all(&text[..text.len() / 2]).unwrap();
    let t0 = Instant::now();
    while !slog2_dev::names(dir)
        .iter()
        .any(|n| n.ends_with(".partial"))
    {
        assert!(t0.elapsed() < Duration::from_secs(20), "no temporary file");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the converter reach its blocking read.
    std::thread::sleep(Duration::from_millis(200));
    (child, w)
}

/// Ctrl-C, SIGTERM, SIGHUP during a conversion left the hidden `.partial`
/// file behind; so did QUIT, USR1, USR2, ALRM, XCPU, VTALRM and PROF (issue
/// #27 class 5: XCPU and USR1 are what batch schedulers send at a job's
/// limit). Now it is removed, the process still ends by the signal, and an
/// existing target is untouched.
#[test]
fn signals_remove_the_temporary_file() {
    for sig in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGXCPU,
        libc::SIGVTALRM,
        libc::SIGPROF,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.slog2");
        std::fs::write(&out, b"the old output").unwrap();
        let (mut child, w) = blocked_conversion(dir.path(), &out);
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let st = child.wait().unwrap();
        drop(w);
        assert_eq!(st.signal(), Some(sig), "signal {sig}: {st:?}");
        assert_eq!(
            slog2_dev::names(dir.path()),
            vec!["in.fifo", "out.slog2"],
            "signal {sig}"
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
    }
}

/// Killed outright (SIGKILL: no clean-up possible), the writer leaves the
/// old target whole and a temporary file that the next writer of the same
/// target recognises as stale and removes.
#[test]
fn kill_during_write_keeps_the_old_file_and_the_next_writer_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.slog2");
    std::fs::write(&out, b"the old output").unwrap();
    let (mut child, w) = blocked_conversion(dir.path(), &out);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(w);
    assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
    assert!(slog2_dev::names(dir.path())
        .iter()
        .any(|n| n.ends_with(".partial")));
    let st = Command::new(bin())
        .args(["convert", "-q"])
        .arg(samples().join("data.txt"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(slog2_dev::names(dir.path()), vec!["in.fifo", "out.slog2"]);
    assert_eq!(print_of(&out), print_of(&samples().join("data.slog2")));
}

/// A file-size limit killed the process with SIGXFSZ and no message.
#[test]
fn file_size_limit_is_an_error_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.slog2");
    let mut cmd = Command::new(bin());
    cmd.args(["convert", "-q"])
        .arg(samples().join("data.txt"))
        .arg("-o")
        .arg(&out);
    // SAFETY: setrlimit is async-signal-safe; runs in the child before exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1000,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{:?} {err}", o.status);
    assert!(err.contains("File too large"), "{err}");
    assert!(
        slog2_dev::names(dir.path()).is_empty(),
        "{:?}",
        slog2_dev::names(dir.path())
    );
}

/// `slog2 print F | head` reported "I/O error on F: Broken pipe", exit 1.
#[test]
fn print_into_a_closed_pipe_is_quiet() {
    let f = samples().join("../slog2/fpilog.slog2");
    let mut child = Command::new(bin())
        .arg("print")
        .arg(&f)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{:?}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// `info/print/query` on a non-SLOG-2 file printed up to 38 KB of it as
/// the "version" without naming the file.
#[test]
fn errors_are_short_and_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("notes.txt");
    let mut text = std::fs::read(samples().join("data.txt")).unwrap();
    text.resize(40_000, b'y');
    std::fs::write(&t, &text).unwrap();
    for cmd in ["info", "print", "query"] {
        let o = Command::new(bin()).arg(cmd).arg(&t).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert!(err.len() < 300, "{cmd}: {} bytes", err.len());
        // `print` also reads CLOG2: it says the file is text.
        let what = if cmd == "print" {
            "a text trace"
        } else {
            "not an SLOG-2"
        };
        assert!(
            err.contains("notes.txt") && err.contains(what),
            "{cmd}: {err}"
        );
    }
    // A damaged file: the query's error names it too.
    let d = dir.path().join("damaged.slog2");
    let mut b = std::fs::read(samples().join("data.slog2")).unwrap();
    let n = b.len();
    for x in &mut b[200..n - 200] {
        *x = 0xff;
    }
    std::fs::write(&d, &b).unwrap();
    for cmd in ["print", "query"] {
        let o = Command::new(bin()).arg(cmd).arg(&d).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        if !o.status.success() {
            assert!(err.contains("damaged.slog2"), "{cmd}: {err}");
        }
    }
    // A missing output directory is not a missing file.
    let o = Command::new(bin())
        .args(["convert", "-q"])
        .arg(samples().join("data.txt"))
        .arg("-o")
        .arg(dir.path().join("no/such/dir/out.slog2"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("output directory"), "{err}");
}

fn convert_to(out: &Path) -> std::process::Output {
    Command::new(bin())
        .args(["convert", "-q"])
        .arg(samples().join("data.txt"))
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// Issue #27 class 1: `-o` renamed its temporary file over whatever was at
/// the path. Now a character device (a copy of /dev/null made with mknod in
/// our own directory) and a FIFO are written through and stay what they
/// are, `-` is standard output, a symlink is followed (the link stays), an
/// existing file keeps its mode, and a directory is refused.
#[test]
fn output_onto_special_files_never_replaces_them() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = d.join("plain.slog2");
    assert!(convert_to(&plain).status.success());
    let expected = std::fs::read(&plain).unwrap();
    // A character device: root may mknod; otherwise the FIFO case below
    // covers writing through.
    let null = d.join("null");
    let c = std::ffi::CString::new(null.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; makedev(1, 3) is the memory device "null".
    if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0 {
        assert!(convert_to(&null).status.success());
        let m = std::fs::symlink_metadata(&null).unwrap();
        assert!(m.file_type().is_char_device(), "still a device");
        assert_eq!(m.rdev(), libc::makedev(1, 3));
    } else {
        eprintln!("mknod not permitted: the device case is not run");
    }
    // Standard output.
    let out = Command::new(bin())
        .args(["convert", "-q"])
        .arg(samples().join("data.txt"))
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, expected);
    // A FIFO: written through to its reader.
    let fifo = d.join("out.fifo");
    let cf = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(cf.as_ptr(), 0o600) }, 0);
    let f2 = fifo.clone();
    let reader = std::thread::spawn(move || std::fs::read(&f2).unwrap());
    assert!(convert_to(&fifo).status.success());
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    // A symlink: its target is written, the link stays a link.
    let link = d.join("link.slog2");
    std::os::unix::fs::symlink("target.slog2", &link).unwrap();
    assert!(convert_to(&link).status.success());
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(d.join("target.slog2")).unwrap(), expected);
    // A read-only file keeps its mode.
    let ro = d.join("ro.slog2");
    std::fs::write(&ro, b"old").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o440)).unwrap();
    assert!(convert_to(&ro).status.success());
    assert_eq!(
        std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777,
        0o440
    );
    assert_eq!(std::fs::read(&ro).unwrap(), expected);
    // A directory: refused, nothing written, nothing left.
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = convert_to(&sub);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
    assert!(slog2_dev::names(&sub).is_empty());
    assert!(!slog2_dev::names(d).iter().any(|n| n.ends_with(".partial")));
}

/// Issue #28: gzip on a pipe (`zcat`-free: `cat x.gz | slog2 convert - -o
/// out`), a text trace and a CLOG2 log, gives the bytes the plain file
/// gives; `-` without -o says to name the output.
#[test]
fn gzip_on_standard_input_converts_like_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for input in [
        samples().join("data.txt"),
        common::fixture("clog2/big_stencil.clog2"),
    ] {
        let plain = dir.path().join("plain.slog2");
        let st = Command::new(bin())
            .args(["convert", "-q"])
            .arg(&input)
            .arg("-o")
            .arg(&plain)
            .status()
            .unwrap();
        assert!(st.success());
        let gz = Command::new("gzip").arg("-c").arg(&input).output().unwrap();
        assert!(gz.status.success());
        let piped = dir.path().join("piped.slog2");
        let mut child = Command::new(bin())
            .args(["convert", "-q", "-", "-o"])
            .arg(&piped)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = gz.stdout;
        let feeder = std::thread::spawn(move || stdin.write_all(&bytes));
        let out = child.wait_with_output().unwrap();
        feeder.join().unwrap().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(&piped).unwrap(),
            std::fs::read(&plain).unwrap(),
            "{}",
            input.display()
        );
    }
    let out = Command::new(bin())
        .args(["convert", "-q", "-"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o"));
}

/// Issue #26/#27: negative times are values; `check` on a missing file says
/// UNREADABLE (exit 2); a gzip text trace converts; times print readably.
#[test]
fn small_cli_diagnostics() {
    let slog2 = samples().join("data.slog2");
    let out = Command::new(bin())
        .arg("query")
        .arg(&slog2)
        .args(["--from", "-1e-3", "--to", "1e-3", "--stats"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("window [-0.001, 0.001]"));
    let out = Command::new(bin())
        .args(["check", "/nonexistent/x.slog2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(so.contains("UNREADABLE") && !so.contains("INVALID"), "{so}");
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("data.txt.gz");
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "gzip -c {} > {}",
            samples().join("data.txt").display(),
            gz.display()
        ))
        .status()
        .unwrap();
    assert!(st.success());
    let o = dir.path().join("gz.slog2");
    let st = Command::new(bin())
        .args(["convert", "-q"])
        .arg(&gz)
        .arg("-o")
        .arg(&o)
        .status()
        .unwrap();
    assert!(st.success());
    let plain = dir.path().join("plain.slog2");
    assert!(convert_to(&plain).status.success());
    assert_eq!(std::fs::read(&o).unwrap(), std::fs::read(&plain).unwrap());
    // A time of 1e308 in an order error: no 309 digits.
    let t = dir.path().join("big.txt");
    std::fs::write(
        &t,
        "Category[ index=0 name=x topo=State color=(1,1,1,255,true) width=1 ]\n\
         Primitive[ TimeBBox(0,1e308) Category=0 (0, 0) (1e308, 0) ]\n\
         Primitive[ TimeBBox(0,1) Category=0 (0, 0) (1, 0) ]\n",
    )
    .unwrap();
    let out = Command::new(bin())
        .arg("convert")
        .arg(&t)
        .arg("-o")
        .arg(dir.path().join("big.slog2"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("1e308") && !e.contains("100000000000"), "{e}");
    // A binary input says what it is and names the file.
    let out = Command::new(bin())
        .args(["convert", "/bin/sh", "-o"])
        .arg(dir.path().join("sh.slog2"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("/bin/sh") && e.contains("ELF") && !e.contains("keyword"),
        "{e}"
    );
}
