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
//! * every real drawable, merged across all node lists by drawing order the
//!   way the reference's iterator does (each list is assumed sorted; an item
//!   that sorts before the previously printed one is printed anyway, prefixed
//!   with `  *****  `); a drawable starting at or after the root's end time is
//!   not printed (the reference's last window is half-open);
//! * numbers in Java's `Double.toString` / `Float.toString` text (vertex times
//!   are printed as floats, like the reference).
//!
//! Shadows are not printed (the reference printer does not either).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
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

/// One sorted list of the merge: a node's nestless or nestable drawables.
struct Head {
    key: (TimeBox, i32, i32, i32),
    list: usize,
}

impl Head {
    fn cmp_key(&self, other: &Head) -> Ordering {
        let (a, b) = (&self.key, &other.key);
        drawing_order(*a, *b).then(self.list.cmp(&other.list))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_key(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    // Reversed: BinaryHeap is a max-heap, we want the smallest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.cmp_key(self)
    }
}

fn key_of(d: &Drawable) -> (TimeBox, i32, i32, i32) {
    (d.time_box(), d.category(), d.first_line(), d.last_line())
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

    // Drawables: k-way merge of every node's two lists, nodes loaded lazily
    // in order of their start time.
    let p = Printer { file };
    let end = file.total_time().end;
    let mut pending: Vec<usize> = (0..file.directory().len()).collect();
    pending.sort_by(|&a, &b| {
        let (x, y) = (&file.directory()[a], &file.directory()[b]);
        x.time_box
            .start
            .total_cmp(&y.time_box.start)
            .then(a.cmp(&b))
    });
    let mut pending = pending.into_iter().peekable();
    let mut lists: Vec<std::iter::Peekable<std::vec::IntoIter<Drawable>>> = Vec::new();
    let mut heap: BinaryHeap<Head> = BinaryHeap::new();
    let mut prev: Option<(TimeBox, i32, i32, i32)> = None;
    let mut n = 0usize;
    loop {
        // Load every node that may hold something sorting before the top.
        while let Some(&i) = pending.peek() {
            let e = &file.directory()[i];
            let load = match heap.peek() {
                None => true,
                Some(top) => e.time_box.start <= top.key.0.start || e.time_box.start.is_nan(),
            };
            if !load {
                break;
            }
            pending.next();
            let node = file.read_node(e, NodeParts::Drawables).map_err(invalid)?;
            for list in [node.nestless, node.nestable] {
                let mut it = list.into_iter().peekable();
                if let Some(d) = it.peek() {
                    heap.push(Head {
                        key: key_of(d),
                        list: lists.len(),
                    });
                }
                lists.push(it);
            }
        }
        let Some(top) = heap.pop() else { break };
        let Some(d) = lists[top.list].next() else {
            continue;
        };
        if let Some(next) = lists[top.list].peek() {
            heap.push(Head {
                key: key_of(next),
                list: top.list,
            });
        }
        let key = top.key;
        if key.0.start >= end {
            continue;
        }
        let out_of_order = prev.is_some_and(|q| drawing_order(key, q) == Ordering::Less);
        n += 1;
        if out_of_order {
            write!(w, "  *****  ")?;
        }
        writeln!(w, "{n}: {}", p.drawable(&d))?;
        prev = Some(key);
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
