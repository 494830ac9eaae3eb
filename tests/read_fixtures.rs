//! The reader against every reference-written fixture in `../shared/fixtures`
//! (used in place) and the reference printer's dumps of them.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use slog2::format::NodeParts;
use slog2::read::Slog2File;
use slog2::{Drawable, TimeBox};

fn fixtures() -> PathBuf {
    common::fixtures()
}

/// Every `.slog2` under slog2/, trace-sample/ and clog2/, sorted.
fn all_slog2() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for sub in ["slog2", "trace-sample", "clog2"] {
        let dir = fixtures().join(sub);
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "slog2") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(
        v.len() >= 20,
        "expected the shared fixtures, found {}",
        v.len()
    );
    v
}

/// The reference printer's dump of a fixture (Latin-1 decoded), if any.
fn dump_of(p: &Path) -> Option<String> {
    let stem = p.file_stem()?.to_str()?;
    for suffix in [".print.txt", ".slog2print.txt"] {
        let d = p.with_file_name(format!("{stem}{suffix}"));
        if let Ok(bytes) = std::fs::read(&d) {
            return Some(bytes.iter().map(|&b| b as char).collect());
        }
    }
    None
}

fn open(p: &Path) -> Slog2File {
    Slog2File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn all_drawables(f: &Slog2File) -> Vec<Drawable> {
    f.drawables().collect::<Result<Vec<_>, _>>().unwrap()
}

fn name(p: &Path) -> String {
    p.strip_prefix(fixtures())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// Lines of the dump that are drawables: `N: Primitive[`, `N: Composite[`,
/// possibly after the printer's `*****` out-of-order marker.
fn dump_drawable_lines(dump: &str) -> Vec<&str> {
    dump.lines()
        .filter(|l| {
            let t = l.trim_start().trim_start_matches('*').trim_start();
            let Some((num, rest)) = t.split_once(": ") else {
                return false;
            };
            !num.is_empty()
                && num.bytes().all(|b| b.is_ascii_digit())
                && (rest.starts_with("Primitive[") || rest.starts_with("Composite["))
        })
        .collect()
}

#[test]
fn every_fixture_opens_and_checks_clean() {
    for p in all_slog2() {
        let f = open(&p);
        let r = f.check();
        assert!(
            r.errors.is_empty(),
            "{}: check errors:\n{}",
            name(&p),
            r.errors.join("\n")
        );
        assert_eq!(r.nodes, f.directory().len(), "{}", name(&p));
        let n = all_drawables(&f).len();
        assert_eq!(r.drawables, n, "{}", name(&p));
        eprintln!(
            "{}: {} nodes, {} drawables, {} shadows, {} warning(s){}",
            name(&p),
            r.nodes,
            r.drawables,
            r.shadows,
            r.warnings.len(),
            r.warnings
                .iter()
                .map(|w| format!("\n    {w}"))
                .collect::<String>()
        );
        // The same through from_bytes.
        let g = Slog2File::from_bytes(std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(g.directory(), f.directory());
        // Debug text: NaN ratios compare unequal with ==.
        assert_eq!(
            format!("{:?}", g.categories()),
            format!("{:?}", f.categories())
        );
        assert_eq!(g.file_len(), f.file_len());
    }
}

#[test]
fn drawable_counts_match_reference_dumps() {
    let mut compared = 0;
    for p in all_slog2() {
        let Some(dump) = dump_of(&p) else { continue };
        let f = open(&p);
        let all = all_drawables(&f);
        let printed = dump_drawable_lines(&dump).len();
        // slog2print never prints a drawable that starts exactly at the
        // root's end time (its last window is half-open).
        let end = f.total_time().end;
        let at_end = all.iter().filter(|d| d.time_box().start >= end).count();
        assert_eq!(
            printed,
            all.len() - at_end,
            "{}: printed {printed}, file has {} ({at_end} at the end)",
            name(&p),
            all.len()
        );
        compared += 1;
    }
    assert!(compared >= 20);
}

/// `key = value` from the dump's header section.
fn dump_field<'a>(dump: &'a str, key: &str) -> &'a str {
    dump.lines()
        .find_map(|l| {
            l.strip_prefix(key)
                .map(|r| r.trim_start().trim_start_matches(['=']).trim())
        })
        .unwrap_or_else(|| panic!("no {key} in dump"))
}

/// `FBinfo(size @ offset)` -> (offset, size)
fn fbinfo(s: &str) -> (i64, i32) {
    let inner = s
        .split_once("FBinfo(")
        .unwrap()
        .1
        .split_once(')')
        .unwrap()
        .0;
    let (size, off) = inner.split_once(" @ ").unwrap();
    (off.trim().parse().unwrap(), size.trim().parse().unwrap())
}

#[test]
fn header_directory_and_categories_match_dumps() {
    for p in all_slog2() {
        let Some(dump) = dump_of(&p) else { continue };
        let f = open(&p);
        let h = f.header();
        let n = name(&p);
        assert_eq!(dump_field(&dump, "version"), h.version, "{n}");
        assert_eq!(
            dump_field(&dump, "NumOfChildrenPerNode")
                .parse::<i16>()
                .unwrap(),
            h.num_children_per_node,
            "{n}"
        );
        assert_eq!(
            dump_field(&dump, "TreeLeafByteSize")
                .parse::<i32>()
                .unwrap(),
            h.treeleaf_bytesize,
            "{n}"
        );
        assert_eq!(
            dump_field(&dump, "MaxTreeDepth").parse::<i16>().unwrap(),
            h.max_treedepth,
            "{n}"
        );
        assert_eq!(
            dump_field(&dump, "MaxBufferByteSize")
                .parse::<i32>()
                .unwrap(),
            h.max_buffer_bytesize,
            "{n}"
        );
        for (key, ptr) in [
            ("Categories", h.categories),
            ("MethodDefs", h.methoddefs),
            ("LineIDMaps", h.lineidmaps),
            ("TreeRoot", h.treeroot),
            ("TreeDir", h.treedir),
            ("Annotations", h.annotations),
            ("Postamble", h.postamble),
        ] {
            let line = dump
                .lines()
                .find(|l| l.starts_with(key) && l.contains(" is FBinfo("))
                .unwrap();
            assert_eq!(fbinfo(line), (ptr.offset, ptr.size), "{n}: {key}");
        }
        assert_eq!(f.root().ptr, h.treeroot, "{n}");
        assert_eq!(f.root_depth(), h.max_treedepth, "{n}");

        // Directory: `ID(d,x) -> DirVal[ TimeBBox(a,b), FBinfo(s @ o) ]`, same order.
        let dir: Vec<&str> = dump
            .lines()
            .filter(|l| l.starts_with("ID(") && l.contains("-> DirVal["))
            .collect();
        assert_eq!(dir.len(), f.directory().len(), "{n}");
        for (line, e) in dir.iter().zip(f.directory()) {
            let id = line.split_once(')').unwrap().0.trim_start_matches("ID(");
            let (d, x) = id.split_once(',').unwrap();
            assert_eq!(
                (d.parse::<i16>().unwrap(), x.parse::<i32>().unwrap()),
                (e.id.depth, e.id.xpos),
                "{n}"
            );
            let tb = line
                .split_once("TimeBBox(")
                .unwrap()
                .1
                .split_once(')')
                .unwrap()
                .0;
            let (a, b) = tb.split_once(',').unwrap();
            assert_eq!(
                TimeBox::new(a.parse().unwrap(), b.parse().unwrap()),
                e.time_box,
                "{n}: {line}"
            );
            assert_eq!(fbinfo(line), (e.ptr.offset, e.ptr.size), "{n}");
        }

        // Categories: index, name, topology, count.
        let mut cats: Vec<(i32, String, String, i64)> = dump
            .lines()
            .filter(|l| l.contains(": Category[ index=") && !l.contains("infobox"))
            .map(|l| {
                let r = l.split_once("Category[ index=").unwrap().1;
                let (idx, r) = r.split_once(", name=").unwrap();
                let (nm, r) = r.split_once(", topo=").unwrap();
                let (topo, _) = r.split_once(',').unwrap();
                let count = l
                    .rsplit_once("count=")
                    .unwrap()
                    .1
                    .trim_end_matches([' ', ']']);
                (
                    idx.parse().unwrap(),
                    nm.to_string(),
                    topo.to_string(),
                    count.parse().unwrap(),
                )
            })
            .collect();
        let mut mine: Vec<(i32, String, String, i64)> = f
            .categories()
            .iter()
            .map(|c| {
                (
                    c.index,
                    c.name.clone(),
                    c.topology.name().to_string(),
                    c.count,
                )
            })
            .collect();
        cats.sort();
        mine.sort();
        assert_eq!(mine, cats, "{n}");
        for c in f.categories() {
            assert!(std::ptr::eq(f.category(c.index).unwrap(), c));
        }

        // Line-ID maps: titles in order.
        let titles: Vec<&str> = dump
            .lines()
            .filter_map(|l| l.strip_prefix("Title: "))
            .collect();
        let mine: Vec<&str> = f.ycoordmaps().iter().map(|m| m.title.as_str()).collect();
        assert_eq!(mine, titles, "{n}");
    }
}

#[test]
fn data_slog2_header_and_popups() {
    let f = open(&fixtures().join("trace-sample/data.slog2"));
    let h = f.header();
    assert_eq!(h.max_buffer_bytesize, 791);
    assert_eq!((h.treeroot.offset, h.treeroot.size), (108, 791));
    assert_eq!(f.file_len(), 1810);
    assert_eq!(f.total_time(), TimeBox::new(0.0005, 0.008));
    assert_eq!(f.categories().len(), 9);
    assert_eq!(f.category(0).unwrap().name, "message");
    assert!(f.category(1234).is_none());
    assert_eq!(f.category_or_unknown(1234).name, "UnknownType-1234");

    let all = all_drawables(&f);
    assert_eq!(all.len(), 9);
    let arrows: Vec<String> = all
        .iter()
        .filter(|d| matches!(d, Drawable::Primitive(p) if p.category == 0))
        .map(|d| f.popup_text(d))
        .collect();
    assert_eq!(
        arrows,
        ["msg_tag=3, msg_size=2000", "msg_tag=9, msg_size=40"]
    );
    let comps: Vec<String> = all
        .iter()
        .filter(|d| matches!(d, Drawable::Composite(_)))
        .map(|d| f.popup_text(d))
        .collect();
    assert_eq!(
        comps,
        ["AA=-10 BB=10", "AA=-100 BB=100", "AA=-1000 BB=1000"]
    );
    // Members carry their own payloads.
    let Drawable::Composite(c) = all
        .iter()
        .find(|d| matches!(d, Drawable::Composite(_)))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(
        f.primitive_popup_text(&c.members[0]),
        "msg_tag=10, msg_size=1024"
    );
    assert_eq!(f.primitive_popup_text(&c.members[1]), "");
}

/// Every infobox text in a dump: (category index, text).
fn dump_infos(dump: &str) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    for line in dump_drawable_lines(dump) {
        let mut rest = line;
        while let Some(i) = rest.find("infobox[ TimeBBox(") {
            rest = &rest[i + 1..];
            let c = rest.split_once("Category=Category[ index=").unwrap().1;
            let idx: i32 = c.split_once(',').unwrap().0.parse().unwrap();
            let t = c.split_once(" ]: ").unwrap().1;
            let end = [t.find("] ("), t.find("] Primitive[")]
                .into_iter()
                .flatten()
                .min()
                .unwrap();
            out.push((idx, t[..end].to_string()));
            rest = &t[end..];
        }
    }
    out
}

#[test]
fn popup_texts_match_reference_dumps() {
    let mut compared = 0;
    for p in all_slog2() {
        let Some(dump) = dump_of(&p) else { continue };
        let f = open(&p);
        let end = f.total_time().end;
        let mut mine: Vec<(i32, String)> = Vec::new();
        for d in all_drawables(&f) {
            if d.time_box().start >= end {
                continue; // not printed by the reference (see above)
            }
            mine.push((d.category(), f.popup_text(&d)));
            if let Drawable::Composite(c) = &d {
                for m in &c.members {
                    mine.push((m.category, f.primitive_popup_text(m)));
                }
            }
        }
        let mut theirs = dump_infos(&dump);
        mine.sort();
        theirs.sort();
        assert_eq!(mine.len(), theirs.len(), "{}", name(&p));
        let diffs: Vec<String> = mine
            .iter()
            .zip(&theirs)
            .filter(|(a, b)| a != b)
            .take(5)
            .map(|(a, b)| format!("  mine {a:?}\n  dump {b:?}"))
            .collect();
        assert!(
            diffs.is_empty(),
            "{}: popup text differs:\n{}",
            name(&p),
            diffs.join("\n")
        );
        compared += 1;
    }
    assert!(compared >= 20);
}

/// Deterministic pseudo-random numbers.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn brute_force(all: &[Drawable], w: TimeBox) -> Vec<Drawable> {
    let mut v: Vec<Drawable> = all
        .iter()
        .filter(|d| d.time_box().overlaps(&w))
        .cloned()
        .collect();
    v.sort_by(|a, b| a.drawing_cmp(b));
    v
}

#[test]
fn window_equals_brute_force() {
    for p in all_slog2() {
        let f = open(&p);
        let n = name(&p);
        let all = all_drawables(&f);
        let tb = f.total_time();
        let span = tb.duration();
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ all.len() as u64);
        let mut windows = vec![
            (tb.start, tb.end),
            (tb.start, tb.start),
            (tb.end, tb.end),
            (tb.start - span, tb.start - span / 2.0),
            (tb.end + 1.0, tb.end + 2.0),
            (f64::NEG_INFINITY, f64::INFINITY),
            (tb.start - 1.0, tb.end + 1.0),
        ];
        // Windows ending/starting exactly on drawable boundaries.
        for d in all.iter().step_by((all.len() / 20).max(1)) {
            let b = d.time_box();
            windows.push((b.start, b.start));
            windows.push((b.end, b.end));
            windows.push((b.start, b.end));
        }
        for _ in 0..60 {
            let a = tb.start - 0.1 * span + 1.2 * span * rng.unit();
            let w = span * rng.unit().powi(3);
            windows.push((a, a + w));
        }
        for (t0, t1) in windows {
            let w = f.window(t0, t1).unwrap();
            let want = brute_force(&all, TimeBox::new(t0, t1));
            assert_eq!(w.drawables.len(), want.len(), "{n}: window [{t0}, {t1}]");
            assert!(
                w.drawables == want,
                "{n}: window [{t0}, {t1}] differs from brute force"
            );
            // Stats: exactly the intersecting nodes.
            let q = TimeBox::new(t0, t1);
            let hit: Vec<_> = f
                .directory()
                .iter()
                .filter(|e| e.time_box.overlaps(&q))
                .collect();
            assert_eq!(w.stats.nodes_read, hit.len(), "{n}");
            // Partial decoding: exactly the returned records (tag + record).
            assert_eq!(
                w.stats.bytes_read,
                w.drawables
                    .iter()
                    .map(|d| 1 + d.byte_size() as u64)
                    .sum::<u64>(),
                "{n}"
            );
            // Tables walked on a miss are whole intersecting nodes; the same
            // window again is served from the node cache.
            assert!(w.stats.bytes_indexed <= hit.iter().map(|e| e.ptr.size as u64).sum::<u64>());
            let again = f.window(t0, t1).unwrap();
            assert!(again.drawables == w.drawables, "{n}: cached window");
            assert_eq!(again.stats.cache_hits, hit.len(), "{n}");
            assert_eq!(again.stats.bytes_indexed, 0, "{n}");
            // Streaming variant: same drawables, same stats.
            let mut streamed = Vec::new();
            let st = f.window_each(t0, t1, |d| streamed.push(d.clone())).unwrap();
            assert_eq!(
                (st.nodes_read, st.bytes_read),
                (w.stats.nodes_read, w.stats.bytes_read)
            );
            streamed.sort_by(|a, b| a.drawing_cmp(b));
            assert!(streamed == want, "{n}: window_each [{t0}, {t1}]");
        }
        assert!(f.window(1.0, 0.0).is_err());
        assert!(f.window(f64::NAN, 1.0).is_err());
    }
}

#[test]
fn window_reads_only_intersecting_nodes() {
    let f = open(&fixtures().join("slog2/fpilog.slog2"));
    assert_eq!(f.directory().len(), 15);
    assert_eq!(f.root_depth(), 3);
    // Strictly inside leaf ID(0,3): only the root path is read.
    let leaf = f.entry(slog2::NodeId::new(0, 3)).unwrap();
    let mid = (leaf.time_box.start + leaf.time_box.end) / 2.0;
    let w = f.window(mid, mid).unwrap();
    assert_eq!(w.stats.nodes_read, 4, "root, ID(2,0), ID(1,1), ID(0,3)");
    assert!(w.stats.bytes_read < f.file_len() / 2);
    let full = f.window(f.total_time().start, f.total_time().end).unwrap();
    assert_eq!(full.stats.nodes_read, 15);
    assert_eq!(full.drawables.len(), 153);
}

#[test]
fn preview_levels_account_for_every_primitive() {
    for p in all_slog2() {
        let f = open(&p);
        let n = name(&p);
        let tb = f.total_time();
        let all = all_drawables(&f);
        let total: i64 = all.iter().map(|d| d.primitives().len() as i64).sum();
        let full = f.window(tb.start, tb.end).unwrap();
        let p0 = f.preview(tb.start, tb.end, 0).unwrap();
        assert!(p0.shadows.is_empty());
        assert!(p0.drawables == full.drawables, "{n}");
        let root_depth = f.root_depth();
        for depth in 1..=root_depth + 2 {
            let pv = f.preview(tb.start, tb.end, depth).unwrap();
            let real: i64 = pv
                .drawables
                .iter()
                .map(|d| d.primitives().len() as i64)
                .sum();
            let shadowed: i64 = pv.shadows.iter().map(|s| s.num_real).sum();
            assert_eq!(real + shadowed, total, "{n}: depth {depth}");
            let eff = depth.min(root_depth + 1).max(1);
            let expect_nodes = if depth > root_depth {
                1
            } else {
                f.directory().iter().filter(|e| e.id.depth >= eff).count()
            };
            assert_eq!(pv.stats.nodes_read, expect_nodes, "{n}: depth {depth}");
            for w in pv.drawables.windows(2) {
                assert_ne!(w[0].drawing_cmp(&w[1]), std::cmp::Ordering::Greater);
            }
        }
        if root_depth > 0 {
            // A sub-window: shadows only intersecting, drawables only intersecting.
            let (t0, t1) = (
                tb.start + tb.duration() * 0.3,
                tb.start + tb.duration() * 0.4,
            );
            let q = TimeBox::new(t0, t1);
            let pv = f.preview(t0, t1, 1).unwrap();
            assert!(pv.shadows.iter().all(|s| s.time_box.overlaps(&q)));
            assert!(pv.drawables.iter().all(|d| d.time_box().overlaps(&q)));
            assert!(!pv.shadows.is_empty(), "{n}");
        }
    }
}

#[test]
fn read_node_matches_directory() {
    for p in all_slog2() {
        let f = open(&p);
        let mut per_node = HashMap::new();
        for e in f.directory() {
            let node = f.read_node(e, NodeParts::All).unwrap();
            assert_eq!(&node.entry, e);
            let kids: Vec<_> = f.children(e.id).map(|c| c.id).collect();
            let stubs: Vec<_> = node.stubs.iter().map(|s| s.entry.id).collect();
            assert_eq!(kids, stubs, "{}", name(&p));
            per_node.insert(e.id, node.drawables().count());
        }
        assert_eq!(per_node.values().sum::<usize>(), all_drawables(&f).len());
    }
}

#[test]
fn print_matches_reference_dumps() {
    let mut exact = 0;
    let mut report = Vec::new();
    for p in all_slog2() {
        let Some(dump) = dump_of(&p) else { continue };
        let f = open(&p);
        let mut out = Vec::new();
        slog2::read::print::print(&f, &mut out).unwrap();
        let mine: String = String::from_utf8_lossy(&out).into_owned();
        if mine == dump {
            exact += 1;
            continue;
        }
        let (a, b): (Vec<&str>, Vec<&str>) = (mine.lines().collect(), dump.lines().collect());
        let first = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        report.push(format!(
            "{}: {} vs {} lines, first difference at line {}:\n  mine {:?}\n  dump {:?}",
            name(&p),
            a.len(),
            b.len(),
            first + 1,
            a.get(first).map(|s| &s[..s.len().min(300)]),
            b.get(first).map(|s| &s[..s.len().min(300)])
        ));
    }
    assert!(
        report.is_empty(),
        "{exact} exact; differences:\n{}",
        report.join("\n")
    );
    assert!(exact >= 20, "only {exact} dumps compared");
    eprintln!("{exact} reference dumps reproduced byte for byte");
}
