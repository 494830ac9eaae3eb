//! `Slog2File::check` and `open` on deliberately damaged copies of fixtures:
//! each edit must produce the right finding (invariant number, level).

mod common;

use slog2::read::Slog2File;
use slog2::{Drawable, NodeId};

fn fixture(rel: &str) -> Vec<u8> {
    let p = common::fixture(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn patch(bytes: &mut [u8], at: usize, new: &[u8]) {
    bytes[at..at + new.len()].copy_from_slice(new);
}

fn has(msgs: &[String], inv: &str) -> bool {
    msgs.iter().any(|m| m.starts_with(inv))
}

#[test]
fn pristine_files_are_clean() {
    for rel in ["trace-sample/data.slog2", "slog2/fpilog.slog2"] {
        let f = Slog2File::from_bytes(fixture(rel)).unwrap();
        let r = f.check();
        assert!(r.errors.is_empty() && r.warnings.is_empty(), "{rel}: {r}");
        assert!(r.is_valid());
    }
}

#[test]
fn trailing_bytes_are_accepted() {
    let mut b = fixture("trace-sample/data.slog2");
    b.resize(b.len() + 5000, 0xAB);
    let f = Slog2File::from_bytes(b).unwrap();
    let r = f.check();
    assert!(r.errors.is_empty(), "{r}");
    assert_eq!(f.drawables().count(), 9);
}

#[test]
fn max_buffer_bytesize() {
    let mut b = fixture("trace-sample/data.slog2");
    patch(&mut b, 20, &10_000i32.to_be_bytes());
    let r = Slog2File::from_bytes(b.clone()).unwrap().check();
    assert!(r.errors.is_empty(), "{r}");
    assert!(has(&r.warnings, "[#27]"), "{r}");

    patch(&mut b, 20, &500i32.to_be_bytes());
    let r = Slog2File::from_bytes(b).unwrap().check();
    assert!(has(&r.errors, "[#3]"), "{r}");
    assert!(has(&r.errors, "[#9]"), "{r}");
}

#[test]
fn node_header_differs_from_directory() {
    let mut b = fixture("trace-sample/data.slog2");
    patch(&mut b, 108, &0.0001f64.to_be_bytes()); // node's own earliest
    let r = Slog2File::from_bytes(b).unwrap().check();
    assert!(has(&r.errors, "[#11]"), "{r}");
}

#[test]
fn category_count_and_undefined_category() {
    let mut b = fixture("trace-sample/data.slog2");
    patch(&mut b, 0x3c7, &7i64.to_be_bytes()); // "message" count 6 -> 7
    let r = Slog2File::from_bytes(b.clone()).unwrap().check();
    assert!(r.errors.is_empty(), "{r}");
    assert!(has(&r.warnings, "[#23]"), "{r}");

    // The REDUCE state at 0xe8 gets category 42, which is not defined.
    patch(&mut b, 0xe9, &42i32.to_be_bytes());
    let f = Slog2File::from_bytes(b).unwrap();
    let r = f.check();
    assert!(r.errors.is_empty(), "{r}");
    assert!(has(&r.warnings, "[#18]"), "{r}");
    assert!(f.category(42).is_none());
    assert_eq!(
        f.categories().len(),
        9,
        "categories() is what the file holds"
    );
    let u = f.category_or_unknown(42);
    assert_eq!(
        (u.name.as_str(), u.topology, u.width),
        ("UnknownType-42", slog2::Topology::State, 1)
    );
    let d = f
        .drawables()
        .map(Result::unwrap)
        .find(|d| d.category() == 42)
        .unwrap();
    assert_eq!(f.popup_text(&d), "");
}

#[test]
fn undecodable_info_payloads() {
    // "message" tokens "dd" (at 0x3bb) -> "ll": 16 bytes needed, 8 stored.
    let mut b = fixture("trace-sample/data.slog2");
    patch(&mut b, 0x3bb, b"ll");
    let f = Slog2File::from_bytes(b.clone()).unwrap();
    let r = f.check();
    assert!(has(&r.errors, "[#17]"), "{r}");
    let arrow = f
        .drawables()
        .map(Result::unwrap)
        .find(|d| d.category() == 0)
        .unwrap();
    assert_eq!(
        f.popup_text(&arrow),
        "msg_tag=12884903888, msg_size= **** info payload too short: %l (token 2 of 2) needs 8 byte(s), 0 left **** "
    );

    // Unknown token letter: a W for the category, an E for each payload.
    patch(&mut b, 0x3bb, b"dq");
    let f = Slog2File::from_bytes(b).unwrap();
    let r = f.check();
    assert!(has(&r.warnings, "[#7]"), "{r}");
    assert!(has(&r.errors, "[#17]"), "{r}");
    let arrow = f
        .drawables()
        .map(Result::unwrap)
        .find(|d| d.category() == 0)
        .unwrap();
    assert_eq!(
        f.popup_text(&arrow),
        "msg_tag=3, msg_size= **** unknown info token '%q' (token 2 of 2) **** "
    );
}

#[test]
fn line_id_missing_from_maps() {
    let mut b = fixture("trace-sample/data.slog2");
    patch(&mut b, 0xf9, &99i32.to_be_bytes()); // REDUCE state's first vertex line
    let f = Slog2File::from_bytes(b).unwrap();
    let r = f.check();
    assert!(r.errors.is_empty(), "{r}");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("[#25]") && w.contains("Identity Map")),
        "{r}"
    );
    // The drawable is still there; it just has no row in the maps.
    assert!(f
        .drawables()
        .map(Result::unwrap)
        .any(|d| d.first_line() == 99));
}

#[test]
fn directory_entry_disagrees_with_node_and_stub() {
    let mut b = fixture("slog2/fpilog.slog2");
    let f = Slog2File::from_bytes(b.clone()).unwrap();
    let i = f
        .directory()
        .iter()
        .position(|e| e.id == NodeId::new(0, 3))
        .unwrap();
    let at = f.header().treedir.offset as usize + 4 + 34 * i + 6; // earliest
    patch(&mut b, at, &0.0051f64.to_be_bytes());
    let r = Slog2File::from_bytes(b).unwrap().check();
    assert!(has(&r.errors, "[#11]"), "{r}");
    assert!(has(&r.errors, "[#13]"), "{r}");
}

#[test]
fn stub_pointer_disagrees() {
    // Swap the block pointers of two leaves in the directory: node headers and
    // stubs no longer match it.
    let mut b = fixture("slog2/fpilog.slog2");
    let f = Slog2File::from_bytes(b.clone()).unwrap();
    let pos = |id| f.directory().iter().position(|e| e.id == id).unwrap();
    let base = f.header().treedir.offset as usize + 4;
    let (a, c) = (
        base + 34 * pos(NodeId::new(0, 1)) + 22,
        base + 34 * pos(NodeId::new(0, 2)) + 22,
    );
    let pa: Vec<u8> = b[a..a + 12].to_vec();
    let pc: Vec<u8> = b[c..c + 12].to_vec();
    patch(&mut b, a, &pc);
    patch(&mut b, c, &pa);
    let r = Slog2File::from_bytes(b).unwrap().check();
    assert!(has(&r.errors, "[#11]"), "{r}");
    assert!(has(&r.errors, "[#13]"), "{r}");
}

#[test]
fn root_selection() {
    let orig = fixture("slog2/fpilog.slog2");
    let f = Slog2File::from_bytes(orig.clone()).unwrap();
    let all: Vec<Drawable> = f.drawables().map(Result::unwrap).collect();

    // max_treedepth wrong, treeroot pointer right: the pointer wins.
    let mut b = orig.clone();
    patch(&mut b, 18, &2i16.to_be_bytes());
    let g = Slog2File::from_bytes(b).unwrap();
    assert_eq!(g.root().id, NodeId::new(3, 0));
    assert_eq!(g.total_time(), f.total_time());
    let r = g.check();
    assert!(has(&r.errors, "[#9]"), "{r}");
    let tb = g.total_time();
    assert_eq!(
        g.window(tb.start, tb.end).unwrap().drawables.len(),
        all.len()
    );

    // treeroot pointer matches nothing, max_treedepth right: ID(D,0) is used.
    let mut b = orig.clone();
    patch(&mut b, 60, &200i64.to_be_bytes());
    let g = Slog2File::from_bytes(b).unwrap();
    assert_eq!(g.root().id, NodeId::new(3, 0));
    assert!(has(&g.check().errors, "[#9]"));

    // Both wrong: open fails with an offset.
    let mut b = orig;
    patch(&mut b, 18, &7i16.to_be_bytes());
    patch(&mut b, 60, &200i64.to_be_bytes());
    let e = Slog2File::from_bytes(b).unwrap_err();
    assert_eq!(e.offset(), Some(60), "{e}");
}

#[test]
fn open_rejects_bad_metadata() {
    let orig = fixture("trace-sample/data.slog2");
    // Null category pointer.
    let mut b = orig.clone();
    patch(&mut b, 24, &[0u8; 12]);
    let e = Slog2File::from_bytes(b).unwrap_err();
    assert!(e.to_string().contains("null"), "{e}");
    // Directory pointer past the end.
    let mut b = orig.clone();
    patch(&mut b, 72, &5000i64.to_be_bytes());
    assert!(Slog2File::from_bytes(b).is_err());
    // Node pointer outside the file.
    let mut b = orig.clone();
    patch(&mut b, 1772 + 4 + 22, &4000i64.to_be_bytes());
    let e = Slog2File::from_bytes(b).unwrap_err();
    assert!(e.to_string().contains("outside the file"), "{e}");
    // Empty directory (count 0, block shortened accordingly).
    let mut b = orig.clone();
    patch(&mut b, 1772, &0i32.to_be_bytes());
    patch(&mut b, 72 + 8, &4i32.to_be_bytes());
    let e = Slog2File::from_bytes(b).unwrap_err();
    assert!(e.to_string().contains("no entries"), "{e}");
    // Wrong version.
    let mut b = orig;
    b[11] = b'7';
    assert!(matches!(
        Slog2File::from_bytes(b),
        Err(slog2::Error::BadVersion { .. })
    ));
}

#[test]
fn mmap_open_of_a_large_file() {
    // big_stencil (1 MB) goes through the memory map, small files are read.
    let p = common::fixture("clog2/big_stencil.slog2");
    let f = Slog2File::open(&p).unwrap();
    assert_eq!(f.path(), Some(p.as_path()));
    assert_eq!(f.file_len(), 1_008_586);
    let g = Slog2File::from_bytes(std::fs::read(&p).unwrap()).unwrap();
    let tb = f.total_time();
    let (a, b) = (
        tb.start + tb.duration() * 0.25,
        tb.start + tb.duration() * 0.26,
    );
    let wf = f.window(a, b).unwrap();
    let wg = g.window(a, b).unwrap();
    assert!(wf.drawables == wg.drawables);
    assert!(wf.stats.nodes_read < f.directory().len());
    // Shared across threads.
    let f = std::sync::Arc::new(f);
    let hs: Vec<_> = (0..4)
        .map(|i| {
            let f = f.clone();
            std::thread::spawn(move || f.window(a + i as f64 * 0.001, b).unwrap().drawables.len())
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}
