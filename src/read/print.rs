//! A text dump in the layout of the reference `slog2printserial`.
//!
//! Why mimic a Java tool's text: the reference dumps of the shared fixtures are
//! the compatibility oracle, and a byte-comparable dump lets anyone diff our
//! reading of a file against the reference's (`slog2 print FILE | diff -
//! FILE.print.txt`). The layout reproduced here:
//!
//! * header, category map, tree directory, line-ID maps;
//! * categories in the order the reference's Java `HashMap<Integer, _>`
//!   iterates them (bucket order, then insertion order), which is what its
//!   dump shows;
//! * every real drawable, in the order of the reference's iterator: one
//!   window per leaf time box, in each a merge of the tree floors' lists that
//!   stays on the current floor on equal start times (which decides the order
//!   of ties across levels), then nestable and nestless merged; an item
//!   starting before the previously printed one is printed anyway, prefixed
//!   with `  *****  `; a drawable starting at or after the root's end time is
//!   not printed (the reference's last window is half-open);
//! * numbers in Java's `Double.toString` / `Float.toString` text (vertex times
//!   are printed as floats, like the reference).
//!
//! Shadows are not printed (the reference printer does not either).

use std::cmp::Ordering;
use std::io::{self, Write};

use super::info::{format_info, java_double, java_float};
use super::{unknown_category, Slog2File};
use crate::format::{BlockPtr, NodeParts};
use crate::model::*;

fn invalid(e: crate::error::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

fn fbinfo(p: &BlockPtr) -> String {
    format!("FBinfo({} @ {})", p.size, p.offset)
}

fn time_bbox(b: &TimeBox) -> String {
    format!("TimeBBox({},{})", java_double(b.start), java_double(b.end))
}

/// The reference's `info_fmt` text: `key[i]` then `%token[i]` for every `i`.
fn info_fmt(f: &InfoFormat) -> String {
    let mut s = String::new();
    for i in 0..f.keys.len().max(f.tokens.len()) {
        if let Some(k) = f.keys.get(i) {
            s.push_str(k);
        }
        if let Some(&t) = f.tokens.get(i) {
            s.push('%');
            s.push(t as char);
        }
    }
    s
}

/// `Category[ index=…, … ]` as the reference prints it.
pub fn category_text(c: &Category, used: bool) -> String {
    let fmt = if c.info.keys.is_empty() && c.info.tokens.is_empty() {
        String::new()
    } else {
        format!("info_fmt=< {} >, ", info_fmt(&c.info))
    };
    let meth = if c.methods.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = c.methods.iter().map(|&x| method_name(x)).collect();
        format!("methods=< {} >, ", names.join(" "))
    };
    format!(
        "Category[ index={}, name={}, topo={}, color=({},{},{},{},{}), isUsed={used}, width={}, {fmt}{meth}vis={}, search={}, ratios={},{}, count={} ]",
        c.index,
        c.name,
        c.topology.name(),
        c.color.red,
        c.color.green,
        c.color.blue,
        c.color.alpha,
        c.color.modifiable,
        c.width,
        c.visible,
        c.searchable,
        java_float(c.incl_ratio),
        java_float(c.excl_ratio),
        c.count
    )
}

/// Iteration order of a Java `HashMap<Integer, _>` filled in file order with
/// the default capacity (16, doubled whenever size exceeds 3/4 of it).
pub fn java_hashmap_order(indices: &[i32]) -> Vec<usize> {
    let mut cap: usize = 16;
    while indices.len() * 4 > cap * 3 {
        cap *= 2;
    }
    let bucket = |h: i32| {
        let h = h as u32;
        (h ^ (h >> 16)) as usize & (cap - 1)
    };
    let mut order: Vec<usize> = (0..indices.len()).collect();
    order.sort_by_key(|&i| (bucket(indices[i]), i));
    order
}

fn method_name(m: i32) -> String {
    if m == METHOD_CONNECT_COMPOSITE_STATE {
        "CONNECT_COMPOSITE_STATE".to_string()
    } else {
        m.to_string()
    }
}

struct Printer<'a> {
    file: &'a Slog2File,
}

impl Printer<'_> {
    fn cat_text(&self, index: i32) -> String {
        match self.file.category(index) {
            Some(c) => category_text(c, true),
            None => category_text(&unknown_category(index), true),
        }
    }

    fn primitive(&self, p: &Primitive) -> String {
        let mut s = format!(
            "Primitive[ infobox[ {} Category={}: {}] ",
            time_bbox(&p.time_box()),
            self.cat_text(p.category),
            format_info(self.file.category(p.category), &p.info)
        );
        for v in &p.vertices {
            s.push_str(&format!("({}, {}) ", java_float(v.time as f32), v.line));
        }
        s.push_str(&format!("] bsize={}", p.byte_size()));
        s
    }

    fn drawable(&self, d: &Drawable) -> String {
        match d {
            Drawable::Primitive(p) => self.primitive(p),
            Drawable::Composite(c) => {
                let mut s = format!(
                    "Composite[ infobox[ {} Category={}: {}] ",
                    time_bbox(&c.time_box()),
                    self.cat_text(c.category),
                    format_info(self.file.category(c.category), &c.info)
                );
                for m in &c.members {
                    s.push_str(&self.primitive(m));
                    s.push(' ');
                }
                s.push(']');
                s
            }
        }
    }
}

/// The reference's `TreeFloorList.ItrOfDrawables`: a merge of the floors'
/// lists (each in drawing order) that keeps taking from the current floor
/// until another floor's head *starts strictly earlier*; on a switch, the
/// floor whose head is first in full drawing order comes next. Ties between
/// floors therefore follow the merge's history, not the drawing order, and
/// this is what `slog2printserial` prints. Heads are kept in a sorted map
/// keyed by drawing order, like the reference's `TreeMap` (a head equal to
/// another one replaces it there, as `TreeMap.put` does).
fn floor_merge(floors: Vec<Vec<&Drawable>>) -> Vec<&Drawable> {
    let rank = |d: &Drawable| d.rank(d.time_box());
    // (head, floor, position of the head in its floor), sorted by head.
    let mut map: Vec<(DrawRank, usize, usize)> = Vec::new();
    let put = |map: &mut Vec<(DrawRank, usize, usize)>, k: DrawRank, f: usize, i: usize| match map
        .binary_search_by(|e| drawing_order(e.0, k))
    {
        Ok(j) => map[j] = (k, f, i),
        Err(j) => map.insert(j, (k, f, i)),
    };
    for (f, fl) in floors.iter().enumerate() {
        if let Some(d) = fl.first() {
            put(&mut map, rank(d), f, 0);
        }
    }
    let mut out = Vec::with_capacity(floors.iter().map(Vec::len).sum());
    if map.is_empty() {
        return out;
    }
    let (_, mut cur_f, mut cur_i) = map.remove(0);
    loop {
        out.push(floors[cur_f][cur_i]);
        let next_border = map.first().map_or(f64::INFINITY, |e| e.0 .0.start);
        if let Some(d) = floors[cur_f].get(cur_i + 1) {
            cur_i += 1;
            if next_border < d.time_box().start {
                let (_, f, i) = map.remove(0);
                put(&mut map, rank(d), cur_f, cur_i);
                (cur_f, cur_i) = (f, i);
            }
        } else if map.is_empty() {
            return out;
        } else {
            (_, cur_f, cur_i) = map.remove(0);
        }
    }
}

/// The reference's `IteratorOfAllDrawables`: nestable and nestless merged,
/// the nestable one first when they compare equal or less.
fn nest_merge<'a>(a: Vec<&'a Drawable>, b: Vec<&'a Drawable>) -> Vec<&'a Drawable> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let take_a = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => x.drawing_cmp(y) != Ordering::Greater,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return out,
        };
        out.extend(if take_a { a.next() } else { b.next() });
    }
}

fn overlaps(a: &TimeBox, b: &TimeBox) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// Write the dump of `file` to `w`. A node that fails to decode ends the dump
/// with an `InvalidData` error (everything before it has been written).
pub fn print<W: Write + ?Sized>(file: &Slog2File, w: &mut W) -> io::Result<()> {
    let h = file.header();
    writeln!(w, "\t SLOG-2 Header:")?;
    writeln!(w, "version = {}", h.version)?;
    writeln!(w, "NumOfChildrenPerNode = {}", h.num_children_per_node)?;
    writeln!(w, "TreeLeafByteSize = {}", h.treeleaf_bytesize)?;
    writeln!(w, "MaxTreeDepth = {}", h.max_treedepth)?;
    writeln!(w, "MaxBufferByteSize = {}", h.max_buffer_bytesize)?;
    for (name, p) in [
        ("Categories ", h.categories),
        ("MethodDefs ", h.methoddefs),
        ("LineIDMaps ", h.lineidmaps),
        ("TreeRoot   ", h.treeroot),
        ("TreeDir    ", h.treedir),
        ("Annotations", h.annotations),
        ("Postamble  ", h.postamble),
    ] {
        writeln!(w, "{name} is {}", fbinfo(&p))?;
    }
    writeln!(w)?;

    writeln!(w, "\t CategoryMap: ")?;
    let cats = file.categories();
    let indices: Vec<i32> = cats.iter().map(|c| c.index).collect();
    for (n, i) in java_hashmap_order(&indices).into_iter().enumerate() {
        writeln!(w, "{}: {}", n + 1, category_text(&cats[i], false))?;
    }
    writeln!(w)?;

    writeln!(w, "\t SLOG-2 Tree Directory")?;
    for e in file.directory() {
        writeln!(
            w,
            "{} -> DirVal[ {}, {} ]",
            e.id,
            time_bbox(&e.time_box),
            fbinfo(&e.ptr)
        )?;
    }
    writeln!(w)?;

    writeln!(w, "\t LineIDMapList: ")?;
    for (n, m) in file.ycoordmaps().iter().enumerate() {
        writeln!(w, "LineIDMap {}: ", n + 1)?;
        writeln!(w, "Title: {}", m.title)?;
        write!(w, "Column Labels: LineID -> ")?;
        for l in &m.column_labels {
            write!(w, "{l} ")?;
        }
        writeln!(w)?;
        for (r, (line, vals)) in m.rows.iter().enumerate() {
            write!(w, "{}, {line}: ", r + 1)?;
            for v in vals {
                write!(w, " {v}")?;
            }
            writeln!(w, " ")?;
        }
        if !m.methods.is_empty() {
            let names: Vec<String> = m.methods.iter().map(|&x| method_name(x)).collect();
            writeln!(w, "methods=< {} >", names.join(" "))?;
        }
        writeln!(w)?;
    }
    writeln!(w)?;
    writeln!(w)?;

    // Drawables, as the reference's `InputLog.ItrOfAllRealDobjs` walks
    // them: one window per leaf time box (the first widened to the root's
    // start, the last to its end); in each, every floor's drawables that
    // overlap the window, merged (see `floor_merge`, `nest_merge`), and those
    // *starting* in the half-open window printed. Decoded nodes are kept
    // while later windows may still overlap them.
    let p = Printer { file };
    let dir = file.directory();
    let root = file.total_time();
    let mut windows: Vec<TimeBox> = dir
        .iter()
        .filter(|e| e.id.depth == 0)
        .map(|e| e.time_box)
        .collect();
    windows.sort_by(|a, b| a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end)));
    windows.dedup_by(|a, b| a.start == b.start && a.end == b.end);
    if let Some(w) = windows.first_mut() {
        w.start = root.start;
    }
    if let Some(w) = windows.last_mut() {
        w.end = root.end;
    }
    // Floors from the root down, each node list in time order.
    let mut floors: Vec<Vec<usize>> = Vec::new();
    let mut by_depth: Vec<usize> = (0..dir.len()).collect();
    by_depth.sort_by_key(|&i| (std::cmp::Reverse(dir[i].id.depth), dir[i].id.xpos));
    for i in by_depth {
        match floors.last_mut() {
            Some(f) if dir[f[0]].id.depth == dir[i].id.depth => f.push(i),
            _ => floors.push(vec![i]),
        }
    }
    let mut cache: std::collections::HashMap<usize, crate::format::Node> = Default::default();
    let mut prev_start = f64::NEG_INFINITY;
    let mut n = 0usize;
    for win in &windows {
        for f in &floors {
            for &i in f {
                if overlaps(&dir[i].time_box, win) && !cache.contains_key(&i) {
                    let node = file
                        .read_node(&dir[i], NodeParts::Drawables)
                        .map_err(invalid)?;
                    cache.insert(i, node);
                }
            }
        }
        let lists = |nestable: bool| -> Vec<Vec<&Drawable>> {
            floors
                .iter()
                .map(|f| {
                    f.iter()
                        .filter(|&&i| overlaps(&dir[i].time_box, win))
                        .filter_map(|i| cache.get(i))
                        .flat_map(|node| {
                            if nestable {
                                &node.nestable
                            } else {
                                &node.nestless
                            }
                        })
                        .filter(|d| overlaps(&d.time_box(), win))
                        .collect()
                })
                .collect()
        };
        let merged = nest_merge(floor_merge(lists(true)), floor_merge(lists(false)));
        for d in merged {
            let start = d.time_box().start;
            if !(win.start <= start && start < win.end) {
                continue;
            }
            n += 1;
            if prev_start > start {
                write!(w, "  *****  ")?;
            }
            writeln!(w, "{n}: {}", p.drawable(d))?;
            prev_start = start;
        }
        cache.retain(|&i, _| dir[i].time_box.end >= win.end);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashmap_order_matches_the_reference_dump_of_data_slog2() {
        // data.slog2 stores 0, 6, ... and slog2print lists 0, -2, 81, -3, 82, 6, 183, 13, 78.
        let order = java_hashmap_order(&[0, -2, 81, -3, 82, 6, 183, 13, 78]);
        assert_eq!(order, (0..9).collect::<Vec<_>>());
        let order = java_hashmap_order(&[78, 13, 0]);
        assert_eq!(order, vec![2, 1, 0]);
    }

    #[test]
    fn info_fmt_text() {
        let f = InfoFormat::parse("%s and %s").unwrap();
        assert_eq!(info_fmt(&f), " and %s%s");
        let f = InfoFormat::parse("msg_tag=%d, msg_size=%d").unwrap();
        assert_eq!(info_fmt(&f), "msg_tag=%d, msg_size=%d");
    }
}
