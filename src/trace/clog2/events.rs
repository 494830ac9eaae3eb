//! Records to drawables: bare and cargo events open and close states,
//! message events pair into arrows, communicator records build the line
//! table, and the end of the log reports what stayed unmatched. A drawable
//! leaves as soon as its last record is read (the log is time-sorted), so
//! they come out in non-decreasing end time.

use super::*;

impl<R: Read> Clog2Source<R> {
    pub(super) fn line_id(&self, icomm: i32, rank: i32, thread: i32) -> i32 {
        // Java int arithmetic (wrapping), as the reference computes it.
        icomm
            .wrapping_mul(self.w.wrapping_mul(self.t))
            .wrapping_add(rank.wrapping_mul(self.t))
            .wrapping_add(thread)
    }

    /// [`rec_error`](Self::rec_error) for the record last read (its header).
    #[cold]
    pub(super) fn head_error(&self, h: &Head, detail: String) -> Error {
        self.rec_error(&self.reader.record(h), detail)
    }

    #[inline]
    pub(super) fn check_pending(&self, h: &Head) -> Result<()> {
        if self.pending > self.opts.max_pending {
            return Err(self.too_many_pending(h));
        }
        Ok(())
    }

    #[cold]
    pub(super) fn too_many_pending(&self, h: &Head) -> Error {
        let sends: usize = self.sends.values().map(Fifo::len).sum();
        let recvs: usize = self.recvs.values().map(Fifo::len).sum();
        let states: usize = self.open.counts().map(|(_, n)| n).sum();
        self.head_error(
            h,
            format!(
                "more than {} items pending ({states} open states, {sends} sends and {recvs} receives without partner): \
                 the log never closes its states or never receives its messages",
                self.opts.max_pending
            ),
        )
    }

    /// The category and role of event number `etype`, through the cache
    /// (creating the category on first use, as [`cat`](Self::cat) does).
    #[inline]
    pub(super) fn hot(&mut self, etype: i32) -> Option<Hot> {
        let slot =
            (etype as u32).wrapping_mul(0x9E37_79B9) as usize >> (32 - HOT_SLOTS.trailing_zeros());
        match self.hot[slot] {
            Some(h) if h.etype == etype => Some(h),
            _ => self.hot_miss(etype, slot),
        }
    }

    #[inline(never)]
    pub(super) fn hot_miss(&mut self, etype: i32, slot: usize) -> Option<Hot> {
        let (index, role) = self.lookup(etype)?;
        let cat = self.cat(index);
        let h = Hot {
            etype,
            index,
            role,
            topology: cat.topology,
            used: cat.used,
        };
        self.hot[slot] = Some(h);
        Some(h)
    }

    /// Forget the cached event numbers (a definition may change them).
    pub(super) fn cool(&mut self) {
        self.hot = [None; HOT_SLOTS];
    }

    #[inline]
    pub(super) fn use_line(&mut self, l: i32) {
        let i = l as u32 as usize;
        if i < DENSE_LINES {
            if i >= self.used_dense.len() {
                self.used_dense.resize(i + 1, 0);
            }
            self.used_dense[i] += 1;
        } else {
            *self.used_lines.entry(l).or_insert(0) += 1;
        }
    }

    /// Hand a drawable of category `h.index` over (first marking its
    /// category used, unless `h` says it is).
    #[inline(always)]
    pub(super) fn emit(&mut self, h: Hot, p: Primitive) -> Result<()> {
        if !h.used {
            self.first_use(h.index)?;
        }
        let v = &p.vertices;
        if let Some(first) = v.first() {
            self.use_line(first.line);
        }
        if v.len() == 2 && h.topology == Topology::Arrow {
            self.use_line(v[1].line);
        }
        self.report.drawables += 1;
        let stated = p.time_box();
        self.out.push(Record::Primitive(TracePrimitive {
            stated,
            primitive: p,
        }));
        Ok(())
    }

    /// A bare (`cargo` = `None`) or cargo event record.
    #[inline(always)]
    pub(super) fn event(&mut self, r: &Head, etype: i32, cargo: Option<&[u8; 32]>) -> Result<()> {
        if etype == -1 {
            return Ok(());
        }
        let Some(hot) = self.hot(etype) else {
            return Err(self.head_error(
                r,
                format!("undefined event number {etype}: no definition precedes it and it is in no predefined range"),
            ));
        };
        let index = hot.index;
        let line = self.line_id(r.icomm, r.rank, r.thread);
        match (hot.topology, hot.role) {
            (Topology::State, Role::Start) => {
                self.open.push(
                    index,
                    line,
                    OpenState {
                        time: r.time,
                        info: cargo.copied(),
                    },
                );
                self.pending += 1;
                self.check_pending(r)?;
            }
            (Topology::State, Role::End) => {
                let Some(s) = self.open.pop(index, line) else {
                    return self.no_start(r, etype, index);
                };
                self.pending -= 1;
                let info = match (cargo, &s.info) {
                    (Some(b), _) | (None, Some(b)) => InfoBytes::from_slice(b),
                    (None, None) => InfoBytes::new(),
                };
                self.emit(
                    hot,
                    Primitive::new(
                        index,
                        smallvec::smallvec![Vertex::new(s.time, line), Vertex::new(r.time, line)],
                        info,
                    ),
                )?;
            }
            (Topology::Event, _) => {
                let info: InfoBytes = cargo.map(|b| InfoBytes::from_slice(b)).unwrap_or_default();
                self.emit(
                    hot,
                    Primitive::new(index, smallvec::smallvec![Vertex::new(r.time, line)], info),
                )?;
            }
            _ => {
                return Err(self.head_error(
                    r,
                    format!("a bare or cargo record on event number {etype}, which belongs to arrow category {index}"),
                ))
            }
        }
        Ok(())
    }

    #[cold]
    pub(super) fn no_start(&mut self, r: &Head, etype: i32, index: i32) -> Result<()> {
        self.report.unmatched_ends += 1;
        let n = self.report.unmatched_ends;
        let msg = format!(
            "{}: end event {etype} (category {index}) at byte offset {} has no open start on its line; dropped",
            self.name, r.offset
        );
        self.warn(n, msg);
        Ok(())
    }

    /// A message record (send or receive half).
    #[inline]
    pub(super) fn message(&mut self, r: &Head) -> Result<()> {
        let [etype, icomm, rank, tag, size] = self.reader.body_i32s::<5>(r);
        if etype == -1 {
            return Ok(());
        }
        let hot = match self.hot(etype) {
            Some(h) if h.topology == Topology::Arrow => h,
            Some(h) => {
                return Err(self.head_error(
                    r,
                    format!(
                        "message record on event number {etype}, which belongs to category {} (not the arrow)",
                        h.index
                    ),
                ))
            }
            None => {
                return Err(self.head_error(r, format!("undefined message event number {etype}")))
            }
        };
        let me = r.icomm.wrapping_mul(self.w).wrapping_add(r.rank);
        let partner = icomm.wrapping_mul(self.w).wrapping_add(rank);
        let line = self.line_id(r.icomm, r.rank, r.thread);
        let arrow = |from: Half, to: Half, tag: i32, size: i32| {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&tag.to_be_bytes());
            b[4..].copy_from_slice(&size.to_be_bytes());
            Primitive::new(
                0,
                smallvec::smallvec![
                    Vertex::new(from.time, from.line),
                    Vertex::new(to.time, to.line)
                ],
                InfoBytes::from_slice(&b),
            )
        };
        let this = Half {
            time: r.time,
            line,
            size,
        };
        if hot.role == Role::Start {
            let key = (me, partner, tag);
            if let Some(rv) = fifo_pop(&mut self.recvs, key) {
                self.pending -= 1;
                return self.emit(hot, arrow(this, rv, tag, rv.size));
            }
            fifo_push(&mut self.sends, key, this);
        } else {
            let key = (partner, me, tag);
            if let Some(sd) = fifo_pop(&mut self.sends, key) {
                self.pending -= 1;
                return self.emit(hot, arrow(sd, this, tag, sd.size));
            }
            fifo_push(&mut self.recvs, key, Half { size: 0, ..this });
        }
        self.pending += 1;
        self.check_pending(r)
    }

    pub(super) fn comm(&mut self, r: &RawRecord) -> Result<()> {
        let Body::Comm {
            icomm, rank, wrank, ..
        } = r.body
        else {
            return Ok(());
        };
        for t in 0..self.t {
            let key = self.line_id(icomm, rank, t);
            self.lines.insert(key, (icomm, rank, t, wrank));
        }
        if self.lines.len() > self.opts.max_pending {
            return Err(self.rec_error(
                r,
                format!(
                    "more than {} line-table entries (communicators x processes x threads)",
                    self.opts.max_pending
                ),
            ));
        }
        Ok(())
    }

    /// The records off the hot path (definitions, communicators, and
    /// anything without drawables).
    pub(super) fn step(&mut self, r: &RawRecord) -> Result<()> {
        match &r.body {
            Body::StateDef { .. } => {
                self.cool();
                self.define_state(r)
            }
            Body::EventDef { .. } => {
                self.cool();
                self.define_event(r)
            }
            Body::Comm { .. } => self.comm(r),
            _ => Ok(()),
        }
    }

    /// After the end of log: leftovers, then the y-maps.
    pub(super) fn finish(&mut self) -> Result<()> {
        let mut unmatched = 0u64;
        let mut open_states = 0u64;
        for (index, n) in self.open.counts() {
            let n = n as u64;
            open_states += n;
            unmatched += n * self.cats.get(&index).map_or(0, |c| c.defined);
        }
        let sends: u64 = self.sends.values().map(|q| q.len() as u64).sum();
        let recvs: u64 = self.recvs.values().map(|q| q.len() as u64).sum();
        let arrow_defs = self.cats.get(&0).map_or(1, |c| c.defined);
        unmatched += (sends + recvs) * arrow_defs;
        self.report.unmatched = unmatched;
        self.report.open_states = open_states;
        self.report.unpaired_sends = sends;
        self.report.unpaired_recvs = recvs;
        self.report.records = self.reader.records_read();
        self.report.record_bytes = self.reader.record_bytes();
        if open_states + sends + recvs > 0 {
            self.report.warnings.push(format!(
                "{}: {open_states} state(s) never ended, {sends} send(s) and {recvs} receive(s) without partner (dropped)",
                self.name
            ));
        }
        if self.report.unmatched_ends > MAX_WARNINGS_PER_KIND {
            self.report.warnings.push(format!(
                "{}: {} end event(s) without an open start in total",
                self.name, self.report.unmatched_ends
            ));
        }
        let mut used: Vec<(i32, u64)> = self.used_lines.iter().map(|(&l, &n)| (l, n)).collect();
        used.extend(
            self.used_dense
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(l, &n)| (l as i32, n)),
        );
        used.sort_unstable();
        let mut rows = Vec::with_capacity(used.len());
        for (l, n) in used {
            let Some(&e) = self.lines.get(&l) else {
                return Err(Error::Source(format!(
                    "{}: {n} drawable(s) on line ID {l}, which no communicator record announced",
                    self.name
                )));
            };
            rows.push((l, e));
        }
        let threads = self.t > 1;
        let (t1, t2) = if threads {
            ("Process-Thread View", "Communicator-Thread View")
        } else {
            ("Process View", "Communicator View")
        };
        let map1 = YCoordMap {
            title: t1.into(),
            column_labels: if threads {
                vec!["world_rank".into(), "thread".into()]
            } else {
                vec!["world_rank".into()]
            },
            rows: rows
                .iter()
                .map(|&(l, (_, _, t, w))| (l, if threads { vec![w, t] } else { vec![w] }))
                .collect(),
            methods: Vec::new(),
        };
        let map2 = YCoordMap {
            title: t2.into(),
            column_labels: if threads {
                vec!["commID".into(), "comm_rank".into(), "thread".into()]
            } else {
                vec!["commID".into(), "comm_rank".into()]
            },
            rows: rows
                .iter()
                .map(|&(l, (c, r, t, _))| (l, if threads { vec![c, r, t] } else { vec![c, r] }))
                .collect(),
            methods: Vec::new(),
        };
        self.out.push(Record::YCoordMap(Box::new(map1)));
        self.out.push(Record::YCoordMap(Box::new(map2)));
        Ok(())
    }

    pub(super) fn start(&mut self) -> Result<()> {
        let arrow = Cat {
            topology: Topology::Arrow,
            name: Some("message".into()),
            color: (255, 255, 255),
            format: Some("msg_tag=%d, msg_size=%d".into()),
            defined: 1,
            used: false,
        };
        self.cats.insert(0, arrow);
        let rec = self.category_record(0)?;
        self.out.push(rec);
        Ok(())
    }

    /// Fill `self.out` with the records of the next batch of CLOG2 records.
    pub(super) fn fill(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            self.start()?;
        }
        while self.out.len() < 1024 && !self.finished {
            let h = match self.reader.next_head_fast() {
                Some(h) => h,
                None => match self.reader.next_head()? {
                    Some(h) => h,
                    None => {
                        self.finished = true;
                        self.finish()?;
                        break;
                    }
                },
            };
            self.last_offset = h.offset;
            match h.rectype {
                rectype::BAREEVT => {
                    let etype = self.reader.body_i32(&h, 0);
                    self.event(&h, etype, None)?;
                }
                rectype::CARGOEVT => {
                    let etype = self.reader.body_i32(&h, 0);
                    let cargo: [u8; 32] = self.reader.body_bytes(&h, 8);
                    self.event(&h, etype, Some(&cargo))?;
                }
                rectype::MSGEVT => self.message(&h)?,
                _ => {
                    let r = self.reader.record(&h);
                    self.step(&r)?;
                }
            }
        }
        Ok(())
    }
}
