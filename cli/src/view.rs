//! `slog2 view`: hand over to the Java viewer. Only translates: finds the
//! jar and the JNI library next to this binary, then execs `java`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Open FILE in slog2view, the timeline viewer (runs `java -jar slog2view.jar FILE`; needs Java 17).
///
/// The jar is --jar, else $SLOG2VIEW_JAR, else ../share/java/slog2view.jar beside an installed
/// binary (scripts/install.sh), else java/build/slog2view.jar of the repository this binary was
/// built in.
#[derive(clap::Args)]
pub(crate) struct Args {
    file: PathBuf,
    /// The slog2view jar.
    #[arg(long)]
    jar: Option<PathBuf>,
}

pub(crate) fn run(a: Args) -> Result<ExitCode, slog2::Error> {
    Ok(view(&a.file, a.jar))
}

fn view(file: &Path, jar: Option<PathBuf>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|p| p.to_path_buf()));
    let mut jars: Vec<PathBuf> = jar.into_iter().collect();
    if let Some(j) = std::env::var_os("SLOG2VIEW_JAR") {
        jars.push(PathBuf::from(j));
    }
    let mut libs = Vec::new();
    if let Some(d) = &exe_dir {
        jars.push(d.join("../share/java/slog2view.jar")); // PREFIX/bin/slog2 (install.sh)
        jars.push(d.join("../../java/build/slog2view.jar")); // target/release/slog2 (build tree)
        libs.push(d.join("libslog2jni.so"));
        libs.push(d.join("../lib/libslog2jni.so"));
    }
    let Some(jar) = jars.into_iter().find(|j| j.is_file()) else {
        eprintln!("slog2 view: slog2view.jar not found (install it with scripts/install.sh PREFIX, build it with java/viewer/build.sh --no-test, or pass --jar / set SLOG2VIEW_JAR)");
        return ExitCode::from(2);
    };
    let mut cmd = std::process::Command::new("java");
    if let Some(lib) = libs.into_iter().find(|l| l.is_file()) {
        cmd.arg(format!("-Dslog2.library={}", lib.display()));
    }
    cmd.arg("-jar").arg(&jar).arg(file);
    let err = cmd.exec(); // returns only on failure
    eprintln!("slog2 view: cannot run java ({err}); install a Java 17 runtime (openjdk-17-jre)");
    ExitCode::from(2)
}
