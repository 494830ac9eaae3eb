//! Definitions: state and event definitions of the log become categories
//! (a colour from the reference's table or its palette, a label, the
//! y-map's first use), and the lookups from an event number to its
//! category and role.

use super::*;

/// The colour table of the reference (`jumpshot.colors`: X.Org's rgb.txt with
/// the differences listed in `clog2-format.md` §9.3).
const COLORS: &str = include_str!("colors.txt");

fn lookup_color(name: &str) -> Option<(u8, u8, u8)> {
    static TABLE: std::sync::OnceLock<FxHashMap<&'static str, (u8, u8, u8)>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut m = FxHashMap::default();
        for line in COLORS.lines() {
            let mut it = line.splitn(4, ' ');
            let (Some(r), Some(g), Some(b), Some(n)) = (it.next(), it.next(), it.next(), it.next())
            else {
                continue;
            };
            if let (Ok(r), Ok(g), Ok(b)) = (r.parse(), g.parse(), b.parse()) {
                m.insert(n, (r, g, b));
            }
        }
        m
    });
    table.get(name).copied()
}

/// Colour `k` (k >= 1) of the palette the reference uses for nameless
/// categories: the 216 web-safe colours, red slowest, stably sorted by
/// decreasing r²+g²+b², entry `k mod 215`.
fn palette(k: u64) -> (u8, u8, u8) {
    let mut all = Vec::with_capacity(216);
    for r in 0..6u32 {
        for g in 0..6u32 {
            for b in 0..6u32 {
                all.push((r * 51, g * 51, b * 51));
            }
        }
    }
    all.sort_by_key(|&(r, g, b)| std::cmp::Reverse(r * r + g * g + b * b));
    let (r, g, b) = all[(k % 215) as usize];
    (r as u8, g as u8, b as u8)
}

impl<R: Read> Clog2Source<R> {
    /// The predefined (category, role) of an event number, in the reference's
    /// insertion order (later ranges override earlier ones).
    pub(super) fn predefined(&self, e: i32) -> Option<(i32, Role)> {
        let p = self.reader.preamble();
        let e = e as i64;
        let k = p.known_state_id_count as i64;
        let u = p.user_state_id_count as i64;
        let ks = p.known_solo_event_id_count as i64;
        let us = p.user_solo_event_id_count as i64;
        let d = e - p.user_solo_event_id_start as i64;
        if (0..us).contains(&d) {
            return Some(((1 + k + u + ks + d) as i32, Role::Solo));
        }
        let d = e - p.known_solo_event_id_start as i64;
        if (0..ks).contains(&d) {
            return Some(((1 + k + u + d) as i32, Role::Solo));
        }
        let d = e - p.user_event_id_start as i64;
        if (0..2 * u).contains(&d) {
            let role = if d % 2 == 0 { Role::Start } else { Role::End };
            return Some(((1 + k + d / 2) as i32, role));
        }
        let d = e - p.known_event_id_start as i64;
        if (0..2 * k).contains(&d) {
            let role = if d % 2 == 0 { Role::Start } else { Role::End };
            return Some(((1 + d / 2) as i32, role));
        }
        match e as i32 {
            SEND => Some((0, Role::Start)),
            RECV => Some((0, Role::End)),
            _ => None,
        }
    }

    pub(super) fn lookup(&self, e: i32) -> Option<(i32, Role)> {
        self.events.get(&e).copied().or_else(|| self.predefined(e))
    }

    pub(super) fn cat(&mut self, index: i32) -> &mut Cat {
        let (states_end, first_new) = (self.states_end, self.next_index_base);
        match self.cats.entry(index) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let i = index as i64;
                let topo = if index == 0 {
                    Topology::Arrow
                } else if i >= states_end && i < first_new {
                    Topology::Event
                } else {
                    Topology::State
                };
                v.insert(Cat::nameless(topo))
            }
        }
    }

    pub(super) fn category_record(&self, index: i32) -> Result<Record> {
        let c = &self.cats[&index];
        let (r, g, b) = c.color;
        let mut cat = Category::new(
            index,
            c.name.clone().unwrap_or_default(),
            c.topology,
            Color::rgba(r, g, b, 255),
            if c.topology == Topology::Arrow { 3 } else { 1 },
        );
        if let Some(f) = &c.format {
            cat.info = InfoFormat::parse(f).map_err(|e| {
                Error::Source(format!("{}: category {index}: info format {e}", self.name))
            })?;
        }
        Ok(Record::Category(Box::new(cat)))
    }

    pub(super) fn color_of(&self, r: &RawRecord, field: &[u8]) -> Result<(u8, u8, u8)> {
        let text = reader::text_field(field);
        let Some(text) = text else {
            return Err(self.rec_error(r, "definition has no colour name".into()));
        };
        let name = text.split(':').next().unwrap_or("");
        lookup_color(name).ok_or_else(|| {
            self.rec_error(
                r,
                format!("unknown colour name {name:?} (not in the reference's colour table)"),
            )
        })
    }

    /// A drawable of category `c` is about to be handed over: on the
    /// category's first, name it if it has no name and hand it over.
    #[cold]
    pub(super) fn first_use(&mut self, c: i32) -> Result<()> {
        let cat = self.cat(c);
        if !cat.used {
            cat.used = true;
            if cat.name.is_none() {
                self.renamed += 1;
                let color = palette(self.renamed);
                let cat = self.cat(c);
                cat.name = Some(format!("UnknownType-{c}"));
                cat.color = color;
            }
            let rec = self.category_record(c)?;
            self.out.push(rec);
        }
        for h in self.hot.iter_mut().flatten() {
            if h.index == c {
                h.used = true;
            }
        }
        Ok(())
    }

    pub(super) fn define_state(&mut self, r: &RawRecord) -> Result<()> {
        let Body::StateDef {
            start,
            end,
            color,
            name,
            format,
            ..
        } = &r.body
        else {
            return Ok(());
        };
        let rgb = self.color_of(r, color)?;
        let (s, f) = (self.lookup(*start), self.lookup(*end));
        let index = match (s, f) {
            (Some((a, _)), Some((b, _))) if a == b => a,
            (Some((a, _)), Some((b, _))) => {
                // The reference's error path: the new name is lost and the
                // previous state definition's category is handed over again.
                self.straddles += 1;
                let n = self.straddles;
                let msg = format!(
                    "{}: state definition at byte offset {} uses event {} of category {a} and event {} of category {b}; \
                     ignored as the reference does (both stay nameless)",
                    self.name, r.offset, start, end
                );
                self.warn(n, msg);
                let p = self.reader.preamble();
                let fallback = self.last_state_def.or({
                    let pairs = p.known_state_id_count as i64 + p.user_state_id_count as i64;
                    (pairs > 0).then_some(pairs as i32)
                });
                if let Some(i) = fallback {
                    self.cat(i).defined += 1;
                    let rec = self.category_record(i)?;
                    self.out.push(rec);
                }
                return Ok(());
            }
            _ => {
                let i = self.new_index(r)?;
                self.events.insert(*start, (i, Role::Start));
                self.events.insert(*end, (i, Role::End));
                self.cats.insert(i, Cat::nameless(Topology::State));
                i
            }
        };
        let cat = self.cat(index);
        if cat.topology != Topology::State && cat.topology != Topology::Arrow {
            return Err(self.rec_error(
                r,
                format!("state definition on event numbers of event category {index}"),
            ));
        }
        let name_t = reader::text_field(name);
        let format_t = reader::text_field(format);
        let cat = self.cat(index);
        if name_t.is_some() || !cat.used {
            cat.name = name_t;
        }
        cat.color = rgb;
        cat.format = format_t;
        cat.defined += 1;
        self.last_state_def = Some(index);
        let rec = self.category_record(index)?;
        self.out.push(rec);
        Ok(())
    }

    pub(super) fn define_event(&mut self, r: &RawRecord) -> Result<()> {
        let Body::EventDef {
            etype,
            color,
            name,
            format,
        } = &r.body
        else {
            return Ok(());
        };
        let rgb = self.color_of(r, color)?;
        let index = match self.lookup(*etype) {
            Some((i, Role::Solo)) => i,
            Some((i, _)) => {
                return Err(self.rec_error(
                    r,
                    format!("event definition on event number {etype}, which belongs to state or arrow category {i}"),
                ))
            }
            None => {
                let i = self.new_index(r)?;
                self.events.insert(*etype, (i, Role::Solo));
                self.cats.insert(i, Cat::nameless(Topology::Event));
                i
            }
        };
        let name_t = reader::text_field(name);
        let format_t = reader::text_field(format);
        let cat = self.cat(index);
        if name_t.is_some() || !cat.used {
            cat.name = name_t;
        }
        cat.color = rgb;
        cat.format = format_t;
        cat.defined += 1;
        let rec = self.category_record(index)?;
        self.out.push(rec);
        Ok(())
    }

    pub(super) fn new_index(&mut self, r: &RawRecord) -> Result<i32> {
        let i = self.next_index;
        if i > i32::MAX as i64 {
            return Err(self.rec_error(r, "too many categories".into()));
        }
        self.next_index += 1;
        Ok(i as i32)
    }

    pub(super) fn rec_error(&self, r: &RawRecord, detail: String) -> Error {
        Error::malformed(
            "CLOG2 record",
            r.offset,
            format!(
                "{}: {detail} (record #{}: {})",
                self.name,
                self.reader.records_read(),
                describe(r)
            ),
        )
    }

    pub(super) fn warn(&mut self, kind_count: u64, msg: String) {
        if kind_count <= MAX_WARNINGS_PER_KIND {
            self.report.warnings.push(msg);
        }
    }
}
