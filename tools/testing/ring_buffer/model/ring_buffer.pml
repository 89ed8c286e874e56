/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Promela model of the lockless protocol of kernel/trace/ring_buffer.c,
 * checked with Spin (see README in this directory and the section
 * "The protocol, model-checked" of Documentation/trace/ring-buffer.txt).
 *
 * Every step names the function of ring_buffer.c it stands for and, in
 * backquotes, the accesses of shared state it performs, by their text, not
 * their line (see "Citations" below; drift.py checks them against the
 * code).
 *
 * One CPU's ring is modelled: its writer in task context, an interrupt
 * and an NMI that nest into it (each runs to completion before the
 * context it interrupted goes on; with IRQ_ARRIVALS 2 the irq's events
 * come in up to two interrupts, each arriving anywhere, and with
 * NMI_ARRIVALS 2 the NMI's), the consuming reader on another CPU
 * (it takes the head sub-buffer out of the ring and reads its page in
 * place), an iterator, and a control path (reset under the writer hold).
 * A configuration (CFG_*, chosen with spin -DCFG_x) picks the actors and
 * the geometry.
 *
 * Pages are separate from slots, as in the code: a slot (struct
 * rb_subbuf) holds a page index (sb->page) and, while taken, the spare
 * page the reader left (sb->next); the reader holds one page (rd.copy),
 * the read_page() caller another.  The page numbers move between them;
 * the cells live in the pages.
 *
 * What is abstracted:
 *  - Memory is sequentially consistent, one Promela statement is one
 *    access (or one local64/atomic read-modify-write).  The barriers that
 *    make a weakly ordered CPU behave like this are argued separately
 *    (the barrier table in the Documentation file).
 *  - An event takes one cell of a page; its TIME_STAMP prefix lives in
 *    the same cell.  rb_fill_event() stores the page's stamp (first
 *    event of a page), the TIME_STAMP event's stamp (an absolute one) and
 *    the data header (id, kind, delta), each a step; the caller writes
 *    the payload in a further step.  A reader that looks at a cell
 *    between the steps sees a torn event.  A page's commit word holds a
 *    cell count.
 *  - The clock is one global counter that every rb_clock() call moves on.
 *    Deltas never exceed 27 bits, except that a negative one (the clock
 *    read before a nested writer's) stands for the u64 wrap.
 *  - The slot tag (seq << 1 | RB_TAKEN) is the pair sseq/staken, always
 *    read and written together in one step.
 *  - cb->tail is read where the code reads it: the fast path of
 *    rb_reserve() takes its slot from it (no tag check), rb_tail_of()
 *    checks the slot's tag and falls back to seq % NR.  rb_move()'s
 *    cmpxchg of write, its store of prev->end and each store of tail in
 *    rb_set_tail()'s re-check loop are separate steps, so an interrupt
 *    may move the ring on between any two of them.
 *  - The per-slot stack of open reserves (slot->w[], rb_pop) is each
 *    actor's local variables.  cb->mapped is a constant: 0, or 1 from
 *    the start in CFG_MAP (the live page commit, GET_READER's
 *    rb_map_next(), read_page() copying); page ids, rb_map_pages(),
 *    user space's reads of the mapping, the lost flags in a mapped
 *    page's commit word, waiters, resize and order changes are left out.
 *  - Lost events: rb_push() raises cb->pushing, moves head, adds to
 *    cb->overrun and drops pushing, each a step; rb_rd_move() records
 *    lost_mark from overrun, rb_rd_sync() moves only while pushing is 0;
 *    consume, peek, read_page() and GET_READER take the loss with
 *    rb_take_lost().  The iterator's own loss accounting is left out.
 *  - While a push is in flight a reader whose take failed goes round
 *    rb_rd_look()'s loop without effect until pushing drops: the model
 *    waits for that (or gives up) instead of spinning (rb_take_wait()).
 *  - A read_page() caller that got a whole page may write it at once
 *    (it is the caller's): the model scribbles over it after the reader
 *    lock is dropped, so that anyone still reading it through the ring
 *    is caught.
 *
 * Properties (each assertion names its property; check.sh reports them):
 *  p_once   every committed event is read exactly once or counted as
 *           overrun; discarded or cleared events are never read
 *  p_torn   a reader never accepts a torn, unwritten or overwritten event
 *  p_time   stamps read back are the stamps the writers took, and never
 *           go backwards
 *  p_commit commit never passes an open reservation (nor write)
 *  p_count  counters exact: unread + read + overrun = committed, dropped
 *           and commit_overrun count the refused events, read_page's
 *           whole-page count (rb_own_total()) matches its events
 *  p_slot   a writer fills the page of the slot that holds the sub-buffer
 *           it claimed in (the slot it got from cb->tail is not stale)
 *  p_page   every page is in exactly one place: a slot not taken, the
 *           next of a taken slot, the reader, the read_page() caller
 *           (checked after every tag change in rb_mark() and rb_take(),
 *           every hand-over to read_page()'s caller, a reset, the end)
 *  p_lost   the reader is told of a loss with the first event after the
 *           gap, and by its size: when it takes the loss, the committed
 *           events before its position that it never read are exactly
 *           lost_mark - lost_seen
 *  deadlock Spin's invalid end states; progress: ltl wprog (-DLIVE).
 */

/*
 * Citations.  Every step names the C function it stands for and, in
 * backquotes, the accesses of shared state it performs, keyed by their
 * text (the n-th access with the same text in a function is `text#n`).
 * drift.py (make model-drift, part of make test) checks both ways that
 * each access of a function the model cites has a citation and that each
 * citation is still an access of its function.  The accesses of cited
 * functions that have no step of their own:
 *
 *  rb_enter() `atomic_read(&buffer->record_disabled)`,
 *    `READ_ONCE(slot->cb)`, `READ_ONCE(buffer->max_len)`: the buffer-wide
 *    switch, the CPU's ring and the size limit never change in the model.
 *  ring_buffer_nest_start() `READ_ONCE(slot->cb)`, `barrier()`;
 *    ring_buffer_nest_end() `READ_ONCE(slot->cb)`, `barrier()`: the
 *    per-CPU nesting record (slot->nest), the model's nest_start() and
 *    nest_end() locals.
 *  rb_claimed() `wc->end =`: the writer's own context, not shared.
 *  rb_mark() `READ_ONCE(sb->next_id)`, `WRITE_ONCE(sb->id)`; rb_take()
 *    `READ_ONCE(sb->id)`, `WRITE_ONCE(sb->next_id)`: page ids of a user
 *    mapping are not modelled.
 *  rb_push() `local64_set(&cb->pushed)`; rb_cpu_restart()
 *    `local64_set(&cb->pushed)`: only the iterator's loss accounting
 *    reads it, which is not modelled.
 *  rb_page_commits() `sb->page`, `sb->page#2`; rb_rd_move()
 *    `WRITE_ONCE(cb->pm->rd)`; rb_range_clear() `WRITE_ONCE(cb->pm->rd)`,
 *    `barrier()`, `smp_wmb()`: a persistent range's records (cb->pm is
 *    NULL in the model).
 *  rb_iter_fill() `local_read(&cb->pushing)`: an iterator reads a
 *    sub-buffer being pushed out until the writer marks its slot
 *    (rb_cur_fill()'s tag check decides); the model's iterator moves on
 *    at once, which the code also does once the push is counted.
 *  rb_rd_give() `cb->rd.copy->time_stamp =`,
 *    `local_set(&cb->rd.copy->commit)`: the page read_page() gives the
 *    reader is emptied; page contents are not modelled.
 *  rb_cur_event() `atomic_or(&buffer->record_disabled)`: the RB_WARN
 *    path, an assertion (p_torn) in the model.
 *  rb_map_next() `local_read(&rd->copy->commit)`,
 *    `local_set(&rd->copy->commit)`: the lost flags of a mapped page's
 *    commit word are not modelled.
 *  rb_take() `local_set(&page->commit)`: a mapping's page emptied after
 *    a take that lost head to a push; the page is already the reader's
 *    own, and what user space sees of it is not modelled.
 *  rb_rd_page() `dst->time_stamp =`, `local_set(&dst->commit)`: the
 *    header of the caller's own page, written under the reader lock.
 *  rb_cpu_restart() `WRITE_ONCE(cb->resets)`; ring_buffer_iter_peek()
 *    `READ_ONCE(cb->resets)`, `READ_ONCE(cb->resets)#2`,
 *    `atomic64_read(&cb->head)`: the iterator's restart after a reset
 *    (RESET runs no iterator).
 *
 * Functions the cited ones call are checked too; those without a step:
 *
 *  rb_cpu_get() `smp_rmb()`,
 *    `READ_ONCE(per_cpu_ptr(buffer->slots,cpu)->cb)`: the CPU's ring
 *    exists from the start.
 *  rb_lock() `atomic_read(&cb->record_disabled)`; rb_dump_look()
 *    `atomic_fetch_or(&cb->record_disabled)`, `cb->rd.seq`, `cb->lost_seen`,
 *    `cb->lost_mark`, `local_read(&cb->overrun)`, `cb->rd.own`,
 *    `cb->rd.off`, `cb->rd.ts`; rb_dump_page() `local64_read(&cb->commit)`,
 *    `smp_rmb()`, `atomic_long_read(&sb->tag)`, `atomic64_read(&cb->head)`,
 *    `cb->rd.seq`, `READ_ONCE(sb->page)`, `READ_ONCE(sb->end)`, `cur->copy->time_stamp`,
 *    `cb->rd.own`, `cb->rd.copy`, `local_read(&cur->copy->commit)`, `cb->rd.seq#2`:
 *    an NMI reader that cannot take the lock reads in place, with a cursor
 *    of its own, and switches the CPU's writers off; the model's reader is
 *    never in an NMI.
 *  rb_nmi_refused() `atomic_long_inc(&cb->dropped)`: architectures
 *    without NMI-safe cmpxchg.
 *  rb_pop() `barrier()`: the per-CPU record of open reserves, the
 *    model's locals.
 *  rb_iter_passed() `local_read(&cb->pushing)`, `smp_rmb()`,
 *    `local64_read(&cb->pushed)`, `cb->rd.seq`, `atomic64_read(&cb->head)`,
 *    `cb->rd.own`, `cb->rd.seq#2`, `atomic_long_read(&rb_slot_of(cb,seq)->tag)`,
 *    `atomic64_read(&cb->head)#2`;
 *    rb_iter_from_reader() `cb->rd.seq`, `cb->rd.own`, `cb->rd.copy`,
 *    `cb->rd.len`; rb_full_hit() `local64_read(&cb->commit)`,
 *    `atomic64_read(&cb->head)`: an iterator that head passed moves to
 *    head (it_move()); its loss accounting is not modelled.
 *  rb_meta_update() `local_read(&rd->copy->commit)`,
 *    `WRITE_ONCE(m->reader.lost_events)`, `WRITE_ONCE(m->reader.id)`,
 *    `WRITE_ONCE(m->reader.read)`, `WRITE_ONCE(m->entries)`,
 *    `local_read(&cb->committed)`, `WRITE_ONCE(m->overrun)`,
 *    `local_read(&cb->overrun)`, `WRITE_ONCE(m->read)`, `cb->read`: the
 *    meta page of a mapping, user space's view, not modelled.
 *  rb_range_head() `local64_read(&cb->pm->head)`,
 *    `local64_try_cmpxchg(&cb->pm->head)`; rb_range_seq() `smp_wmb()`,
 *    `READ_ONCE(*num)`, `WRITE_ONCE(*num)`: persistent ranges.
 *  rb_wakeups() `READ_ONCE(slot->wake.any)`; rb_wake_slow()
 *    `READ_ONCE(slot->wake.all)`, `WRITE_ONCE(slot->wake.all)`,
 *    `smp_mb()`, `READ_ONCE(buffer->all_armed)`, `READ_ONCE(slot->wake.cpu)`,
 *    `READ_ONCE(slot->waiter.full)`; rb_kick() `WRITE_ONCE(*wt->armed)`:
 *    waiters are not modelled.
 */

/* ------------------------------------------------------------ configs */
#if defined(CFG_NEST)
/* Writer with a nested irq and NMI, discards, one reader, overwrite. */
#ifndef NR
#define NR	3
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	1
#endif
#ifndef T_DISCARD
#define T_DISCARD	1
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef IRQ_DISCARD
#define IRQ_DISCARD	1
#endif
#ifndef NMI_EVENTS
#define NMI_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#elif defined(CFG_NMI2)
/*
 * The NMI twice: its two events (ring_buffer_write()) come in one NMI or
 * in two, each arriving anywhere in the task's event or after it; the
 * third event pushes the first sub-buffer out; one consume racing.
 */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	1
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	1
#endif
#ifndef T_DISCARD
#define T_DISCARD	1
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	0
#endif
#ifndef NMI_EVENTS
#define NMI_EVENTS	2
#endif
#ifndef NMI_ARRIVALS
#define NMI_ARRIVALS	2
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#elif defined(CFG_LAP)
/* The writer laps a reader that consumes and reads pages, overwrite. */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	4
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#ifndef RD_PAGE
#define RD_PAGE	1
#endif
#elif defined(CFG_TAKE)
/*
 * One-event sub-buffers: the writer and a nested irq start new laps on
 * slots the reader has taken, while the reader reads pages.
 */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	1
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	3
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#ifndef RD_PAGE
#define RD_PAGE	1
#endif
#elif defined(CFG_MAP)
/*
 * A mapped ring: every publication stores the live page commit, the
 * reader moves on with GET_READER (rb_map_next()) or copies pages.
 */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	4
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#ifndef RD_PAGE
#define RD_PAGE	1
#endif
#ifndef MAPPED
#define MAPPED	1
#endif
#elif defined(CFG_PC) || defined(CFG_DROP)
/*
 * Producer/consumer mode: a full ring drops; the reader makes room.
 * DROP: no read until the writers are done, the task's third event and
 * the irq's (arriving anywhere in it) are both refused.
 */
#ifdef CFG_DROP
#define T_EVENTS	3
#define RD_OPS		0
#endif
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	1
#endif
#ifndef OVERWRITE
#define OVERWRITE	0
#endif
#ifndef T_EVENTS
#define T_EVENTS	2
#endif
#ifndef T_DISCARD
#define T_DISCARD	1
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	2
#endif
#ifndef RD_PAGE
#define RD_PAGE	1
#endif
#elif defined(CFG_GUARD)
/*
 * nest_start/nest_end around a second reserve, interrupted by irqs: two
 * events, in one interrupt or in two that arrive anywhere.
 */
#ifndef NR
#define NR	3
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	1
#endif
#ifndef T_NEST
#define T_NEST	1
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	2
#endif
#ifndef IRQ_ARRIVALS
#define IRQ_ARRIVALS	2
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#elif defined(CFG_RESET)
/* ring_buffer_reset_cpu() under the writer hold, racing all others. */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	2
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	1
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#ifndef CONTROL
#define CONTROL	1
#endif
#elif defined(CFG_ITER)
/*
 * An iterator while the writer laps it and the reader peeks, then hands
 * its page to read_page()'s caller.
 */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	2
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	5
#endif
#ifndef RD_OPS
#define RD_OPS	2
#endif
#ifndef RD_PAGE
#define RD_PAGE	1
#endif
#ifndef RD_PEEK_PAGE
#define RD_PEEK_PAGE	1
#endif
#ifndef ITER_OPS
#define ITER_OPS	2
#endif
#elif defined(CFG_WRAP)
/*
 * Irq writers wrap the ring onto the open reserve they interrupted: two
 * events, in one interrupt or in two.
 */
#ifndef NR
#define NR	2
#endif
#ifndef CAP
#define CAP	1
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	1
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	2
#endif
#ifndef IRQ_ARRIVALS
#define IRQ_ARRIVALS	2
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#elif defined(CFG_TAIL)
/*
 * A move interrupted between its cmpxchg of write and its tail store: the
 * irq fills the new sub-buffer and moves on, the task's later events take
 * the fast path on cb->tail.  Sub-buffer 0 starts full of padding (as
 * after discards that could not be taken back), so the first event moves.
 */
#ifndef NR
#define NR	3
#endif
#ifndef CAP
#define CAP	3
#endif
#ifndef OVERWRITE
#define OVERWRITE	1
#endif
#ifndef T_EVENTS
#define T_EVENTS	3
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	3
#endif
#ifndef RD_OPS
#define RD_OPS	1
#endif
#ifndef PREFILL
#define PREFILL	1
#endif
#else
#error "choose a configuration: -DCFG_NEST, LAP, TAKE, MAP, PC, GUARD, RESET, ITER, WRAP or TAIL"
#endif
#ifndef PREFILL
#define PREFILL		0
#endif
#ifndef IRQ_ARRIVALS
#define IRQ_ARRIVALS	1
#endif

#ifndef T_DISCARD
#define T_DISCARD	0
#endif
#ifndef IRQ_DISCARD
#define IRQ_DISCARD	0
#endif
#ifndef IRQ_EVENTS
#define IRQ_EVENTS	0
#endif
#ifndef NMI_EVENTS
#define NMI_EVENTS	0
#endif
#ifndef NMI_ARRIVALS
#define NMI_ARRIVALS	1
#endif
#ifndef T_NEST
#define T_NEST		0
#endif
#ifndef RD_PAGE
#define RD_PAGE		0
#endif
#ifndef RD_PEEK_PAGE
#define RD_PEEK_PAGE	0
#endif
#ifndef CONTROL
#define CONTROL		0
#endif
#ifndef MAPPED
#define MAPPED		0
#endif
#ifndef ITER_OPS
#define ITER_OPS	0
#endif
#define NWRITERS	(1 + (IRQ_EVENTS > 0) + (NMI_EVENTS > 0))
#define LOCKED		(CONTROL || ITER_OPS)

/* ------------------------------------------------------------ constants */
#define B		(CAP + 1)	/* positions: seq * B + offset */
#define MAXEV		16		/* event ids (ghost) */
#define POS_NONE	255		/* RB_POS_NONE */
#define TOP_NONE	0		/* RB_TOP_NONE */
#define TOP_BUSY	1		/* RB_TOP_BUSY */
#define KEY_TASK	2		/* rb_ctx_key(): RB_KEY_BASE + context */
#define KEY_IRQ		3
#define KEY_NMI		4
#define HELD		1		/* RB_HELD */
#define RD_TRIES	12		/* RB_READ_TRIES, smaller */
#define TOTAL_ASK	254		/* RB_TOTAL_ASK */
#define TOTAL_LOST	255		/* RB_TOTAL_LOST */

/*
 * Pages: 0 .. NR-1 start in the slots, NR is the reader's first spare
 * (rb_cpu_alloc()'s rd.copy), NR + 1 the read_page() caller's page;
 * PG_NULL stands for a NULL page pointer (sb->next before any take) and
 * has cells of its own so that a write through it stays in bounds.
 */
#define PG_RD		NR
#define PG_USER		(NR + 1)
#if RD_PAGE
#define PG_NULL		(NR + 2)
#define NPG		(NR + 3)
#else
#define PG_NULL		(NR + 1)
#define NPG		(NR + 2)
#endif
#define SLOT_NONE	NR		/* cb->ptail == NULL */

#define PSEQ(p)		((p) / B)	/* rb_pseq() */
#define POFF(p)		((p) % B)	/* rb_poff() */
#define MKPOS(s, o)	((s) * B + (o))	/* rb_mkpos() */
#define SLOT(s)		((s) % NR)	/* rb_slot_of() */
#define CI(pg, o)	((pg) * CAP + (o))

/* cell kinds */
#define K_NONE		0		/* never written: size 0, RB_WARN */
#define K_DELTA		1		/* data event, delta in its header */
#define K_ABS		2		/* TIME_STAMP + data event */
#define K_PAD		3		/* RINGBUF_TYPE_PADDING */

/* ghost event states */
#define ST_NONE		0
#define ST_RESERVED	1		/* claimed, not finished */
#define ST_COMMITTED	2
#define ST_DISCARDED	3
#define ST_READ		4
#define ST_CLEARED	5		/* a reset emptied the ring */
#define ST_LOST		6		/* overwritten unread, loss reported */

/* results of a claim attempt */
#define R_OK		0
#define R_AGAIN		1
#define R_FAIL		2

#define OP_COMMIT	0
#define OP_DISCARD	1
#define OP_WRITE	2

/* ------------------------------------------------------------ state */
/* struct rb_cpu, writer side */
byte wpos;				/* cb->write */
byte cpos;				/* cb->commit */
byte top;				/* cb->top */
byte stamp;				/* cb->stamp */
byte stamp_pos = POS_NONE;		/* cb->stamp_pos */
byte floor;				/* cb->floor: the model's clock never goes back */
byte tail;				/* cb->tail (slot number) */
byte ptail = SLOT_NONE;			/* cb->ptail */
byte committed, overrun, commit_overrun, dropped;
byte pushing;				/* cb->pushing */
/* shared */
byte head;				/* cb->head */
byte recdis;				/* cb->record_disabled / RB_HELD */
/* struct rb_subbuf, per slot */
short sseq[NR];				/* sb->tag >> 1 */
bit staken[NR];				/* sb->tag & RB_TAKEN */
byte spage[NR];				/* sb->page */
byte snext[NR];				/* sb->next */
byte cum[NR];				/* sb->cum */
byte retired[NR];			/* sb->retired */
byte send[NR];				/* sb->end */
/* struct rb_data_page, per page */
byte pts[NPG];				/* page->time_stamp */
byte pcmt[NPG];				/* page->commit */
byte cid[NPG * CAP];			/* header: which event */
byte ckind[NPG * CAP];			/* header: type_len */
byte ctv[NPG * CAP];			/* header: delta or absolute stamp */
byte cpay[NPG * CAP];			/* payload */
/*
 * The consuming reader's cursor cb->rd and cb->read, under reader_lock
 * (the iterator's rb_iter_own_fill() and the reset touch them too).
 */
byte r_seq, r_off, r_len, r_ts;		/* rd.seq, rd.off, rd.len, rd.ts */
bit r_done, r_own;			/* rd.done, rd.own */
byte r_pg = PG_RD;			/* rd.copy */
byte upage = PG_USER;			/* the read_page() caller's page */
byte nread;				/* cb->read */
byte lost_mark, lost_seen;		/* cb->lost_mark, cb->lost_seen */
bit rlock;				/* cb->reader_lock */
/* the writer CPU */
byte clk;				/* trace clock */
byte ctx;				/* 0 task, 1 irq, 2 nmi running */
bit irq_in, nmi_in;
byte in_cs;				/* contexts between rb_enter and rb_leave */

byte wdone;				/* writer actors finished */
bit ctl_done = !CONTROL;
/* ghost */
byte nid;
byte evst[MAXEV], evpos[MAXEV], evts[MAXEV];
byte gh_committed, gh_drop, gh_cov, gh_read;

/* property tags: a violated assertion names its property */
hidden byte p_once = 1, p_torn = 1, p_time = 1, p_commit = 1, p_count = 1;
hidden byte p_slot = 1, p_lost = 1, p_page = 1;
hidden byte pgi, pgj, pgn;		/* counters of pg_check() */

#ifdef LIVE
ltl wprog { <> (wdone == NWRITERS) }
#endif

/*
 * -DSEQUENTIAL: no interleaving inside an operation.  Each writer event
 * (the whole nest sequence in GUARD), each read, each iterator step and
 * the reset runs with no step of any other actor in between; interrupts
 * arrive only between the task's events.  What a sequential test could
 * see, every order of whole operations: check.sh runs each mutant so, and
 * an interleaving bug must pass there.
 */
#ifdef SEQUENTIAL
byte seq_owner, seq_depth;
#define SEQ_FREE	(seq_owner == 0 || seq_owner == _pid)
#define SEQ_IDLE	(seq_owner == 0)
#define SEQ_BEGIN()	atomic { SEQ_FREE -> seq_owner = _pid; seq_depth++ }
#define SEQ_END()	atomic { seq_depth--; if :: seq_depth == 0 -> seq_owner = 0 :: else fi }
#else
#define SEQ_IDLE	1
#endif

/*
 * p_page: every page is in exactly one place: a slot not taken (its
 * page), a taken slot (the spare in its next; its page is the reader's),
 * the reader (rd.copy), the read_page() caller.
 */
#define SLOT_PG(s)	(staken[s] -> snext[s] : spage[s])
inline pg_check()
{
	d_step {
		pgi = 0;
		do
		:: pgi < PG_NULL ->
			pgn = (r_pg == pgi);
#if RD_PAGE
			pgn = pgn + (upage == pgi);
#endif
			pgj = 0;
			do
			:: pgj < NR ->
				pgn = pgn + (SLOT_PG(pgj) == pgi);
				pgj++
			:: else -> break
			od;
			assert(p_page && pgn == 1);
			pgi++
		:: else -> break
		od;
		pgi = 0;
		pgj = 0;
		pgn = 0
	}
}

/* ------------------------------------------------------------ writer */
#define WR_LOCALS							\
	byte w, w2, off, sb, ts, st, sp, prev, id, nseq, r, h, c, n, end, op, ntop, k, pg, s2, pv, fl; \
	short t2, k2;							\
	short old, dl;							\
	bit ok, got, abs, nset, otk;					\
	byte res

/* rb_enter(): recording on, guard key above the innermost writer's */
inline rb_enter(key)
{
	ok = 1;
#if CONTROL
	atomic {
		in_cs++;		/* rb_enter() preempt_disable_notrace() */
		if
		:: recdis != 0 ->	/* rb_enter() `atomic_read_acquire(&cb->record_disabled)` */
			dropped++;	/* rb_enter() `atomic_long_inc(&cb->dropped)` */
			gh_drop++;
			ok = 0;
#ifdef MUTANT_LEAK_PREEMPT
			skip		/* the refusal keeps preemption off */
#else
			in_cs--		/* rb_enter() preempt_enable_notrace() */
#endif
		:: else
		fi
	};
#endif
	if
	:: ok ->
		prev = top;		/* rb_enter() `READ_ONCE(cb->top)` */
		if
		:: key > prev ->
			top = key	/* rb_enter() `WRITE_ONCE(cb->top)`, then `barrier()` */
		:: prev == key ->
			top = key + 1	/* rb_guard_retry() `WRITE_ONCE(cb->top)` */
		:: else ->
			ok = 0
#if CONTROL
			; in_cs--	/* rb_enter() */
#endif
		fi
	:: else
	fi
}

/* rb_push(): overwrite mode retires sub-buffer r (slot sb) */
inline rb_push()
{
	/* both written only by this CPU's writers: one step */
	n = cum[sb] - retired[sb];	/* rb_push() `local_read(&sb->cum)`, `sb->retired` */
#ifndef MUTANT_LATE_OVERRUN
	pushing++;			/* rb_push() `local_inc(&cb->pushing)` */
#endif
#ifdef MUTANT_OVERRUN_BEFORE_PUSH
	overrun = overrun + n;		/* counted before the head cmpxchg */
#endif
	atomic {			/* rb_push() `atomic64_try_cmpxchg(&cb->head)` */
		if
		:: head == r -> head = r + 1; got = 1
		:: else -> got = 0
		fi
	};
	if
	:: got ->
#ifndef MUTANT_OVERRUN_BEFORE_PUSH
		overrun = overrun + n	/* rb_push() `local_add(&cb->overrun)` */
#else
		skip			/* counted already, taken or not */
#endif
	:: else ->
		h = head		/* rb_push() `atomic64_read_acquire(&cb->head)` */
	fi;
#ifndef MUTANT_LATE_OVERRUN
	pushing--			/* rb_push() `smp_wmb()`, then `local_dec(&cb->pushing)` */
#else
	skip				/* no pushing: a reader may see head before overrun */
#endif
}

/* rb_tail_of(s): cb->tail if its slot's tag is s, else the slot of s */
inline rb_tail_of(s, out)
{
	out = tail;			/* rb_tail_of() `READ_ONCE(cb->tail)` */
	if
	:: sseq[out] == (s)		/* rb_tail_of() `atomic_long_read(&sb->tag)` */
	:: else -> out = SLOT(s)	/* rb_tail_of() rb_slot_of() */
	fi
}

/* rb_mark(): slot sb takes sub-buffer nseq (and, if taken, the spare) */
inline rb_mark()
{
#ifdef MUTANT_CUM_AFTER_TAG
	atomic { old = sseq[sb]; otk = staken[sb] };	/* the tag first */
	c = cum[sb];			/* then the count */
#else
	c = cum[sb];			/* rb_mark() `local_read(&sb->cum)`, then `barrier()` */
	atomic { old = sseq[sb]; otk = staken[sb] };	/* rb_mark() `atomic_long_read_acquire(&sb->tag)` */
#endif
	if
	:: old == nseq			/* rb_mark() marked by a nested writer */
	:: old > nseq -> res = R_AGAIN	/* rb_mark() */
	:: old < nseq ->
#ifndef MUTANT_PAGE_AFTER_TAG
		if
		:: otk ->		/* rb_mark() */
			retired[sb] = c;	/* rb_mark() `WRITE_ONCE(sb->retired)` */
			/* rb_mark() `READ_ONCE(sb->next_id)`, `WRITE_ONCE(sb->id)`: page ids are not modelled */
			spage[sb] = snext[sb]	/* rb_mark() `WRITE_ONCE(sb->page)`, `READ_ONCE(sb->next)` */
		:: else
		fi;
#endif
		atomic {		/* rb_mark() `atomic_long_try_cmpxchg(&sb->tag)` */
			if
			:: sseq[sb] == old && staken[sb] == otk ->
				sseq[sb] = nseq;
				staken[sb] = 0
			:: else -> res = R_AGAIN
			fi
		};
		if
		:: res == R_OK ->
#ifdef MUTANT_PAGE_AFTER_TAG
			if		/* the spare goes in after the new tag */
			:: otk -> spage[sb] = snext[sb]
			:: else
			fi;
#endif
			retired[sb] = c	/* rb_mark() `WRITE_ONCE(sb->retired)#2`, then `smp_wmb()` */
		:: else
		fi;
		pg_check()
	fi
}

/* rb_move() with rb_make_room(): start sub-buffer PSEQ(w) + 1 */
inline rb_move()
{
	nseq = PSEQ(w) + 1;		/* rb_move() */
	rb_tail_of(nseq - 1, pv);	/* rb_move() prev */
	sb = SLOT(nseq);		/* rb_move() */
	res = R_OK;
	if
	:: nseq >= NR ->		/* rb_make_room() */
		r = nseq - NR;
		c = cpos;		/* rb_make_room() `local64_read(&cb->commit)` */
#ifndef MUTANT_NO_COMMIT_CHECK
		if
		:: !(r < PSEQ(c)) ->	/* rb_make_room() */
			atomic { commit_overrun++; gh_cov++ };	/* rb_make_room() `local_inc(&cb->commit_overrun)` */
			res = R_FAIL
		:: else
		fi;
#endif
		if
		:: res == R_OK ->
			h = head;	/* rb_make_room() `atomic64_read_acquire(&cb->head)` */
			if
			:: !(r < h) ->	/* rb_make_room() */
				if
				:: !OVERWRITE ->	/* rb_make_room() `READ_ONCE(buffer->flags)`: a constant */
#ifdef MUTANT_DROP_COUNT_RMW
					/* a plain read-modify-write, not atomic_long_inc() */
					k = dropped;
					atomic { dropped = k + 1; gh_drop++ };
#else
					atomic { dropped++; gh_drop++ };	/* rb_make_room() `atomic_long_inc(&cb->dropped)` */
#endif
					res = R_FAIL
				:: else ->
					rb_push()	/* rb_make_room() */
				fi
			:: else
			fi
		:: else
		fi
	:: else
	fi;
	if
	:: res == R_OK -> rb_mark()	/* rb_make_room() */
	:: else
	fi;
	if
	:: res == R_OK ->
		atomic {		/* rb_move() `local64_try_cmpxchg(&cb->write)` */
			if
			:: wpos == w -> wpos = MKPOS(nseq, 1)
			:: else -> res = R_AGAIN
			fi
		}
	:: else
	fi;
	if
	:: res == R_OK ->
		send[pv] = POFF(w);	/* rb_move() `WRITE_ONCE(prev->end)` */
#ifdef MUTANT_STALE_TAIL
		tail = sb		/* one store, write not looked at again */
#else
		t2 = nseq;		/* rb_move() rb_set_tail() */
		do
		:: tail = SLOT(t2);	/* rb_set_tail() `WRITE_ONCE(cb->tail)`, then `barrier()` */
			k2 = PSEQ(wpos);	/* rb_set_tail() `local64_read(&cb->write)` */
			if
			:: k2 == t2 -> break	/* rb_set_tail() */
			:: else -> t2 = k2	/* rb_set_tail() */
			fi
		od
#endif
	:: else
	fi
}

/* rb_reserve_slow(): every case of a claim; force: nested writer */
inline rb_reserve_slow(force)
{
	res = R_OK;
	do
	:: 
#ifdef MUTANT_STALE_RETRY
		/* retry with the position read before the failed claim */
		if
		:: res == R_AGAIN
		:: else -> w = wpos
		fi;
#else
		w = wpos;		/* rb_reserve_slow() `local64_read(&cb->write)` */
#endif
		st = stamp;		/* rb_reserve_slow() `READ_ONCE(cb->stamp)` */
		sp = stamp_pos;		/* rb_reserve_slow() `READ_ONCE(cb->stamp_pos)` */
		atomic { clk++; ts = clk };	/* rb_reserve_slow() buffer->clock() */
		fl = floor;		/* rb_reserve_slow() `local64_read(&cb->floor)` */
		d_step {		/* rb_reserve_slow() max() */
			if
			:: ts < fl -> ts = fl
			:: else
			fi
		};
		atomic {		/* rb_reserve_slow() `local64_try_cmpxchg(&cb->floor)` */
			if
			:: floor == fl -> floor = ts; res = R_OK
			:: else -> res = R_AGAIN
			fi
		};
		if
		:: res == R_AGAIN
		:: else ->
			d_step {		/* rb_reserve_slow() */
				off = POFF(w);
				dl = ts - st;
				abs = 0;
				if
				:: off == 0 -> dl = 0
				:: off != 0 && (sp != w || force || dl < 0) -> abs = 1
				:: else
				fi
			};
			if
			:: off + 1 <= CAP ->	/* rb_reserve_slow() */
				atomic {	/* rb_reserve_slow() `local64_try_cmpxchg(&cb->write)` cmpxchg(write) */
					if
					:: wpos == w -> wpos = w + 1; res = R_OK
					:: else -> res = R_AGAIN
					fi
				};
				if
				:: res == R_OK ->
					rb_tail_of(PSEQ(w), sb);	/* rb_reserve_slow() */
					end = w + 1
				:: else
				fi
			:: else ->
				rb_move();	/* rb_reserve_slow() */
				if
				:: res == R_OK ->	/* rb_reserve_slow() */
					w = MKPOS(nseq, 0);
					off = 0;
					abs = 0;
					dl = 0;
					end = w + 1
				:: else
				fi
			fi
		fi;
		if
		:: res == R_AGAIN
		:: else -> break
		fi
	od
}

/* rb_reserve(): the inline common case, else rb_reserve_slow() */
inline rb_reserve()
{
	res = R_AGAIN;
	if
	:: prev == TOP_NONE ->		/* rb_reserve() `READ_ONCE(buffer->abs_ts)` not nested */
		w = wpos;		/* rb_reserve() `local64_read(&cb->write)` */
		atomic { clk++; ts = clk };	/* rb_reserve() buffer->clock() */
		dl = ts - stamp;	/* rb_reserve() `READ_ONCE(cb->stamp)` */
		off = POFF(w);
		sb = tail;		/* rb_reserve() `READ_ONCE(cb->tail)` READ_ONCE(cb->tail) */
		if
		:: stamp_pos == w && dl >= 0 && off != 0 && off + 1 <= CAP ->
					/* rb_reserve() `READ_ONCE(cb->stamp_pos)` */
			fl = floor;	/* rb_reserve() `local64_read(&cb->floor)` */
			atomic {	/* rb_reserve() `local64_try_cmpxchg(&cb->floor)` */
				if
				:: ts >= fl && floor == fl -> floor = ts; res = R_OK
				:: else
				fi
			};
			if
			:: res == R_OK ->
				res = R_AGAIN;
				atomic {	/* rb_reserve() `local64_try_cmpxchg(&cb->write)` cmpxchg(write) */
					if
					:: wpos == w -> wpos = w + 1; res = R_OK
					:: else
					fi
				}
			:: else
			fi
		:: else
		fi;
		if
		:: res == R_OK ->	/* rb_reserve(): sb as read from tail */
			end = w + 1;
			abs = 0
		:: else
		fi
	:: else
	fi;
	if
	:: res != R_OK ->
		rb_reserve_slow(prev != TOP_NONE)	/* rb_reserve() */
	:: else
	fi
}

/* rb_claimed(): note the claim, move the stamp pair on */
inline rb_claimed(counted)
{
	atomic {			/* ghost: the event claimed at w */
		nid++;
		id = nid;
		evpos[id] = w;
		evts[id] = ts;
		evst[id] = ST_RESERVED;
		if
		:: counted ->		/* rb_claimed() calls rb_count() for ring_buffer_write(): rb_count() `local_inc(&sb->cum)`, `local_inc(&cb->committed)`, two increments in one step */
			cum[sb]++;
			committed++;
			gh_committed++
		:: else
		fi
	};
	stamp = ts;			/* rb_claimed() `WRITE_ONCE(cb->stamp)`, `barrier()` */
	stamp_pos = end;		/* rb_claimed() `WRITE_ONCE(cb->stamp_pos)`, `barrier()#2` */
#ifndef MUTANT_STAMP_NORECHECK
	if
	:: stamp != ts -> stamp_pos = POS_NONE	/* rb_claimed() `READ_ONCE(cb->stamp)`, `WRITE_ONCE(cb->stamp_pos)#2` */
	:: else
	fi
#endif
}

/*
 * rb_fill_event(): the page stamp (first event of a page), the
 * TIME_STAMP meta event (abs), the data header: three stores, each a step
 */
inline rb_fill()
{
	atomic {			/* rb_fill_event() `sb->page->time_stamp =` */
		/* the slot the writer found holds the sub-buffer it claimed in */
		assert(p_slot && sb == SLOT(PSEQ(w)));
		pg = spage[sb];
		if
		:: off == 0 -> pts[pg] = ts
		:: else
		fi
	};
	if
	:: abs -> ctv[CI(pg, off)] = ts	/* rb_fill_event(): rb_set_meta(), the TIME_STAMP event */
	:: else
	fi;
	atomic {			/* rb_fill_event(): rb_set_data_header() */
		cid[CI(pg, off)] = id;
		if
		:: abs -> ckind[CI(pg, off)] = K_ABS
		:: else -> ckind[CI(pg, off)] = K_DELTA; ctv[CI(pg, off)] = dl
		fi
	}
}

/*
 * rb_set_page_commit() with rb_page_commits(): before commit moves on to
 * w2, every page it passes gets its final length in its commit word.
 */
inline rb_set_page_commit(from)
{
	if
	:: tail != ptail ->		/* rb_set_page_commit() `READ_ONCE(cb->tail)`, `cb->ptail` */
		s2 = PSEQ(from);	/* rb_page_commits() `local64_read(&cb->commit)` */
		do
		:: s2 != PSEQ(w2) ->
			atomic {	/* rb_page_commits() `local_set(&sb->page->commit)`, `READ_ONCE(sb->end)` */
				pcmt[spage[SLOT(s2)]] = send[SLOT(s2)];
				s2++
			}
		:: else -> break	/* rb_page_commits() then `smp_wmb()` */
		od;
#if MAPPED
		/*
		 * rb_page_commits() `READ_ONCE(cb->mapped)` (a constant here),
		 * `local_set(&sb->page->commit)#2`: the live
		 * length, then `WRITE_ONCE(cb->ptail)` (NULL)
		 */
		atomic { pcmt[spage[SLOT(PSEQ(w2))]] = POFF(w2); ptail = SLOT_NONE }
#else
		ptail = SLOT(PSEQ(w2))	/* rb_page_commits() `WRITE_ONCE(cb->ptail)` */
#endif
	:: else
	fi
}

/* rb_leave() with rb_end_commit(): give the guard back, publish */
inline rb_leave()
{
	if
	:: prev != TOP_NONE ->
#ifdef MUTANT_WRONG_KEY
		top = TOP_NONE
#else
		top = prev		/* rb_end_commit() `barrier()`, `WRITE_ONCE(cb->top)` */
#endif
	:: else ->
#ifdef MUTANT_COMMIT_STALE_RETRY
		w2 = wpos;		/* read once: the retry publishes the same w2 */
#endif
		do
		::
#ifndef MUTANT_COMMIT_STALE_RETRY
			w2 = wpos;	/* rb_end_commit() `local64_read(&cb->write)` */
#endif
#ifdef MUTANT_PAGE_COMMIT_AFTER_COMMIT
			t2 = cpos;	/* the page commit words after commit moves on */
#else
			rb_set_page_commit(cpos);	/* rb_end_commit() after `smp_wmb()` */
#endif
			d_step {	/* rb_end_commit() `local64_set(&cb->commit)`, then `barrier()#2` */
				cpos = w2;
				assert(p_commit && cpos <= wpos);
				k = 1;
				do
				:: k <= nid ->
					assert(p_commit && !(evst[k] == ST_RESERVED && evpos[k] < w2));
					k++
				:: else -> break
				od;
				k = 0
			};
#ifdef MUTANT_PAGE_COMMIT_AFTER_COMMIT
			rb_set_page_commit(t2);
#endif
			top = TOP_NONE;	/* rb_end_commit() `WRITE_ONCE(cb->top)#2`, then `barrier()#3` */
			if
#ifdef MUTANT_NO_RECHECK
			:: true -> break
#else
			:: wpos == w2 -> break	/* rb_end_commit() `local64_read(&cb->write)#2` */
			:: else -> top = TOP_BUSY	/* rb_end_commit() `WRITE_ONCE(cb->top)#3`, then `barrier()#4` */
#endif
			fi
		od
	fi
#if CONTROL
	; in_cs--			/* rb_leave() preempt_enable_notrace() */
#endif
}

/*
 * One event: ring_buffer_lock_reserve() + payload + unlock_commit() or
 * discard_commit(), or ring_buffer_write() (op OP_WRITE).
 */
inline wr_event(key)
{
#ifdef SEQUENTIAL
	SEQ_BEGIN();
#endif
	rb_enter(key);			/* ring_buffer_lock_reserve() / ring_buffer_write() */
	if
	:: ok ->
		/* ring_buffer_lock_reserve() `barrier()`: rb_pop()'s record after the reserve */
		rb_reserve();		/* ring_buffer_lock_reserve() / ring_buffer_write() */
		if
		:: res == R_OK ->
			rb_claimed(op == OP_WRITE);
#ifdef MUTANT_COMMIT_EARLY
			/* the commit store passes the event's stores */
			if
			:: prev == TOP_NONE -> cpos = wpos
			:: else
			fi;
#endif
			rb_fill();
			atomic {	/* the caller's payload / ring_buffer_write() memcpy */
				cpay[CI(pg, off)] = id;
				if
				:: op == OP_WRITE -> evst[id] = ST_COMMITTED
				:: else
				fi
			};
			if
			:: op == OP_COMMIT ->
				atomic {	/* ring_buffer_unlock_commit() calls rb_count() `local_inc(&sb->cum)`, `local_inc(&cb->committed)` */
					cum[sb]++;
					committed++;
					gh_committed++;
					evst[id] = ST_COMMITTED
				}
			:: op == OP_DISCARD ->
				atomic {	/* ring_buffer_discard_commit() `local64_try_cmpxchg(&wc.cb->write)` */
					if
					:: wpos == end -> wpos = w; got = 1
					:: else -> got = 0
					fi;
					evst[id] = ST_DISCARDED
				};
				if
				:: got -> stamp_pos = POS_NONE	/* ring_buffer_discard_commit() `WRITE_ONCE(wc.cb->stamp_pos)` */
				:: else -> ckind[CI(pg, off)] = K_PAD	/* ring_buffer_discard_commit() the padding header */
				fi
			:: op == OP_WRITE
			fi
		:: else
		fi;
		rb_leave()		/* rb_leave() from each of the four */
	:: else
	fi
#ifdef SEQUENTIAL
	; SEQ_END()
#endif
}

/* ring_buffer_nest_start(): let this context in once more */
inline nest_start(key)
{
	if
	:: top >= key ->		/* ring_buffer_nest_start() `READ_ONCE(cb->top)` */
		ntop = top;		/* ring_buffer_nest_start() `cb->top` */
		top = key - 1;		/* ring_buffer_nest_start() `WRITE_ONCE(cb->top)` */
		nset = 1
	:: else -> nset = 0
	fi
}

/* ring_buffer_nest_end() */
inline nest_end(key)
{
	if
	:: nset && top == key - 1 -> top = ntop	/* ring_buffer_nest_end() `READ_ONCE(cb->top)`, `WRITE_ONCE(cb->top)` */
	:: else
	fi
}

#ifdef SEQUENTIAL
proctype Task() provided (ctx == 0 && SEQ_FREE)
#else
proctype Task() provided (ctx == 0)
#endif
{
	WR_LOCALS;
	byte e = 0;
#if T_NEST
	byte a_w, a_sb, a_off, a_prev, a_id, a_end, a_pg;
	bit a_ok;
#endif
	do
	:: e < T_EVENTS ->
		e++;
		if
		:: op = OP_COMMIT
		:: T_DISCARD -> op = OP_DISCARD
		fi;
#if T_NEST
		/*
		 * reserve A; nest_start; reserve, commit B; nest_end; commit A,
		 * written out with the writer's locals of A kept in A_*.
		 */
		{
#ifdef SEQUENTIAL
			SEQ_BEGIN();
#endif
			op = OP_COMMIT;
			rb_enter(KEY_TASK);
			a_ok = ok;
			if
			:: ok ->
				rb_reserve();
				if
				:: res == R_OK ->
					rb_claimed(0);
					rb_fill();
					cpay[CI(pg, off)] = id
				:: else
				fi;
				if
				:: res != R_OK -> rb_leave(); a_ok = 0
				:: else
				fi
			:: else
			fi;
			a_w = w; a_sb = sb; a_off = off; a_prev = prev; a_id = id; a_end = end; a_pg = pg;
			nest_start(KEY_TASK);
			wr_event(KEY_TASK);
			nest_end(KEY_TASK);
			if
			:: a_ok ->
				w = a_w; sb = a_sb; off = a_off; prev = a_prev; id = a_id; end = a_end; pg = a_pg;
				atomic {	/* ring_buffer_unlock_commit() calls rb_count() `local_inc(&sb->cum)`, `local_inc(&cb->committed)` */
					cum[sb]++;
					committed++;
					gh_committed++;
					evst[id] = ST_COMMITTED
				};
				rb_leave()
			:: else
			fi
#ifdef SEQUENTIAL
			; SEQ_END()
#endif
		}
#else
		wr_event(KEY_TASK)
#endif
	:: else -> break
	od;
	wdone++
}

#if IRQ_EVENTS
proctype Irq() provided (ctx == 1 || !irq_in)
{
	WR_LOCALS;
	byte e = 0;
#if IRQ_ARRIVALS > 1
	/*
	 * Up to IRQ_ARRIVALS interrupts, each writing one or more of the
	 * IRQ_EVENTS events, each arriving wherever the task is.
	 */
	byte arr = 0;
	do
	:: e < IRQ_EVENTS ->
		atomic { ctx == 0 && SEQ_IDLE -> ctx = 1; irq_in = 1; arr++ };	/* an interrupt arrives */
		do
		:: e < IRQ_EVENTS ->
			e++;
			if
			:: op = OP_COMMIT
			:: IRQ_DISCARD -> op = OP_DISCARD
			fi;
			wr_event(KEY_IRQ);
			if
			:: arr < IRQ_ARRIVALS && e < IRQ_EVENTS -> break
			:: true
			fi
		:: else -> break
		od;
		atomic {		/* and returns */
			irq_in = 0;
			ctx = 0;
			if
			:: e == IRQ_EVENTS -> wdone++
			:: else
			fi
		}
	:: else -> break
	od
#else
	atomic { ctx == 0 && SEQ_IDLE -> ctx = 1; irq_in = 1 };	/* the interrupt arrives */
	do
	:: e < IRQ_EVENTS ->
		e++;
		if
		:: op = OP_COMMIT
		:: IRQ_DISCARD -> op = OP_DISCARD
		fi;
		wr_event(KEY_IRQ)
	:: else -> break
	od;
	atomic { irq_in = 0; ctx = 0; wdone++ }	/* and returns */
#endif
}
#endif

#if NMI_EVENTS
proctype Nmi() provided (ctx == 2 || !nmi_in)
{
	WR_LOCALS;
	byte e = 0, saved;
#if NMI_ARRIVALS > 1
	/* Up to NMI_ARRIVALS NMIs, each arriving wherever the CPU is. */
	byte arr = 0;
	do
	:: e < NMI_EVENTS ->
		atomic { ctx < 2 && SEQ_IDLE -> saved = ctx; ctx = 2; nmi_in = 1; arr++ };
		do
		:: e < NMI_EVENTS ->
			e++;
			op = OP_WRITE;
			wr_event(KEY_NMI);
			if
			:: arr < NMI_ARRIVALS && e < NMI_EVENTS -> break
			:: true
			fi
		:: else -> break
		od;
		atomic {
			nmi_in = 0;
			ctx = saved;
			if
			:: e == NMI_EVENTS -> wdone++
			:: else
			fi
		}
	:: else -> break
	od
#else
	atomic { ctx < 2 && SEQ_IDLE -> saved = ctx; ctx = 2; nmi_in = 1 };
	do
	:: e < NMI_EVENTS ->
		e++;
		op = OP_WRITE;
		wr_event(KEY_NMI)
	:: else -> break
	od;
	atomic { nmi_in = 0; ctx = saved; wdone++ }
#endif
}
#endif

/* ------------------------------------------------------------ readers */
#define RD_LOCALS							\
	byte c, ln, sbr, i, h, tot, ets, evid, tries, k, ops = 0, pg, base, kd, tq, gave, spare; \
	bit found, took, hasd, tk, moved;				\
	byte rd_sbi, rd_base, rd_total, last_ts

#if LOCKED
/* raw_spin_lock_irqsave(reader_lock) */
#define RB_LOCK()	atomic { rlock == 0 -> rlock = 1 }
#define RB_UNLOCK()	rlock = 0
#else
#define RB_LOCK()	skip
#define RB_UNLOCK()	skip
#endif

/* rb_rd_move(): point the reader at sub-buffer s, not taken yet */
inline rb_rd_move(s)
{
	/* rb_rd_move() `cb->rd.seq`: which salvage gaps it passes, not modelled */
	d_step {			/* rb_rd_move() rb_cur_start() */
		r_seq = s;
		r_off = 0;
		r_len = 0;
		r_done = 0;
		r_own = 0;
		r_ts = 0
	};
	lost_mark = overrun		/* rb_rd_move() `cb->lost_mark =`, `local_read(&cb->overrun)` */
}

/* rb_rd_sync(): catch up with a writer that pushed our sub-buffer */
inline rb_rd_sync()
{
	if
	:: r_own			/* rb_rd_sync() `cb->rd.own` */
	:: else ->
		h = head;		/* rb_rd_sync() `atomic64_read_acquire(&cb->head)` */
		if
		:: h != r_seq ->	/* rb_rd_sync() `cb->rd.seq`, `local_read(&cb->pushing)` */
#if defined(MUTANT_LATE_OVERRUN) || defined(MUTANT_SYNC_IGNORES_PUSHING)
			rb_rd_move(h)	/* pushing is not looked at */
#else
			if
			:: pushing == 0 -> rb_rd_move(h)	/* rb_rd_sync() then `smp_rmb()` */
			:: else
			fi
#endif
		:: else
		fi
	fi
}

/*
 * rb_take_lost() with the lost-position property: the events the reader
 * is told it lost are exactly the committed events before its position
 * it never read (reported once, with the first event after the gap).
 * clear: consuming reads; a peek reports without clearing.
 */
inline rd_lost(clear)
{
	d_step {			/* rb_take_lost() `cb->lost_mark`, `cb->lost_seen`, `cb->lost_seen =`, `cb->lost_mark#2` */
		k = 0;
		i = 1;
		do
		:: i <= nid ->
			if
			:: evst[i] == ST_COMMITTED && evpos[i] < MKPOS(r_seq, r_off) ->
				k++;
				if
				:: clear -> evst[i] = ST_LOST
				:: else
				fi
			:: else
			fi;
			i++
		:: else -> break
		od;
		assert(p_lost && k == lost_mark - lost_seen);
		if
		:: clear -> lost_seen = lost_mark
		:: else
		fi;
		k = 0;
		i = 0
	}
}

/* rb_has_data(s): published data in sub-buffer s or beyond? */
inline rb_has_data(s)
{
	d_step {			/* rb_has_data() `local64_read(&cb->commit)` */
		c = cpos;
		hasd = (s < PSEQ(c) || (s == PSEQ(c) && POFF(c) != 0))
	}
}

/* rb_own_len(): how far the reader's own page is readable */
inline rb_own_len()
{
#ifdef MUTANT_OWN_LEN_PAGE_FIRST
	ln = pcmt[r_pg];		/* the page's commit word before commit */
#endif
	c = cpos;			/* rb_own_len() `local64_read(&cb->commit)`, then `smp_rmb()` */
	if
	:: PSEQ(c) == r_seq ->
		d_step {		/* rb_own_len() */
			ln = POFF(c);
			if
			:: ln > r_len -> r_len = ln
			:: else
			fi
		}
	:: else ->
		atomic {		/* rb_own_len() `local_read(&cur->copy->commit)` */
			r_done = 1;
#ifndef MUTANT_OWN_LEN_PAGE_FIRST
			ln = pcmt[r_pg];
#endif
			if
			:: ln > CAP -> ln = CAP
			:: else
			fi;
			if
			:: ln > r_len -> r_len = ln
			:: else
			fi
		}
	fi
}

/*
 * rb_take(): take sub-buffer r_seq (the head) out of the ring, leave the
 * spare page in the slot; the page is read in place from now on.
 */
inline rb_take()
{
	sbr = SLOT(r_seq);		/* rb_take() `cb->rd.seq`, then `smp_rmb()` */
	took = 1;
	moved = 0;
#ifndef MUTANT_RETAKE_NEXT
	/*
	 * rb_take(): leave the slot alone unless its tag is still r_seq, not
	 * taken.  Without this check (MUTANT_RETAKE_NEXT, the code up to
	 * 9fe6a6b's parent) a take whose head cmpxchg lost to a push in
	 * flight is retried while rb_rd_sync() waits for pushing: the retry
	 * stores the page it took (now rd.copy) in sb->next, and rb_mark()
	 * puts that page back in the slot while the reader holds it.
	 */
	atomic { took = (sseq[sbr] == r_seq && !staken[sbr]); moved = !took };	/* rb_take() `atomic_long_read(&sb->tag)` */
#endif
	/*
	 * rb_take() `READ_ONCE(sb->page)`, `READ_ONCE(sb->retired)`: two
	 * reads, one step (only this slot's next lap changes them, after the
	 * tag); `READ_ONCE(sb->id)`: page ids are not modelled
	 */
	atomic {
		pg = spage[sbr];
		base = retired[sbr];
		spare = r_pg
	};
#ifndef MUTANT_TAG_BEFORE_NEXT
	if
	:: took -> snext[sbr] = r_pg	/* rb_take() `WRITE_ONCE(sb->next)`, `cb->rd.copy`; `WRITE_ONCE(sb->next_id)`: ids */
	:: else
	fi;
#endif
	atomic {			/* rb_take() `atomic_long_try_cmpxchg(&sb->tag)` */
		if
		:: took && sseq[sbr] == r_seq && !staken[sbr] ->
			staken[sbr] = 1;
			took = 1;
			r_pg = pg	/* rb_take() `cb->rd.copy =` */
		:: else -> took = 0
		fi
	};
	pg_check();
	if
	:: took ->
#ifdef MUTANT_TAG_BEFORE_NEXT
		snext[sbr] = spare;	/* the spare goes in after the tag */
#endif
#if defined(MUTANT_NO_HEAD_CMPXCHG)
		h = head;		/* a plain check and store */
		if
		:: h == r_seq -> head = r_seq + 1
		:: else -> took = 0
		fi;
#else
		atomic {		/* rb_take() `atomic64_try_cmpxchg(&cb->head)` */
			if
			:: head == r_seq -> head = r_seq + 1
			:: else -> took = 0
			fi
		};
#endif
		if
		:: took ->
			d_step {	/* rb_take() `cb->rd.own =` */
				r_own = 1;
				rd_sbi = sbr;
				rd_base = base;
				rd_total = TOTAL_ASK
			};
			rb_own_len();	/* rb_take() */
			r_ts = pts[r_pg]	/* rb_take() `cb->rd.ts =`, `page->time_stamp` */
		:: else
		fi
	:: else
	fi
}

/*
 * After a take that found the tag moved on (a writer pushed r_seq), the C
 * loop calls rb_rd_sync(), rb_has_data() and rb_take() again, each a no-op,
 * until pushing drops and rb_rd_sync() moves, or the tries run out: the
 * model waits for pushing == 0 or gives up, without the idle rounds.
 */
inline rb_take_wait()
{
	if
	:: moved ->
		if
		:: pushing == 0
		:: tries = RD_TRIES
		fi
	:: else
	fi
}

/* rb_own_total(): events in the reader's page, or TOTAL_LOST */
inline rb_own_total()
{
	if
	:: rd_total != TOTAL_ASK -> tot = rd_total	/* rb_own_total() */
	:: else ->
#ifdef MUTANT_TOTAL_CUM_AFTER_TAG
		atomic { tq = sseq[rd_sbi]; tk = staken[rd_sbi] };	/* the tag first */
		c = cum[rd_sbi];	/* then the count */
#else
		c = cum[rd_sbi];	/* rb_own_total() `cb->rd.seq`, `local_read(&sb->cum)`, then `smp_rmb()` */
		atomic { tq = sseq[rd_sbi]; tk = staken[rd_sbi] };	/* rb_own_total() `atomic_long_read_acquire(&sb->tag)` */
#endif
		if
		:: tq == r_seq && tk -> tot = c - rd_base
		:: else ->
			c = retired[rd_sbi];	/* rb_own_total() `READ_ONCE(sb->retired)`, then `smp_rmb()#2` */
			atomic { tq = sseq[rd_sbi]; tk = staken[rd_sbi] };	/* rb_own_total() `atomic_long_read(&sb->tag)` */
			if
			:: tq == r_seq + NR && !tk -> tot = c - rd_base
			:: else -> tot = TOTAL_LOST
			fi
		fi;
		rd_total = tot		/* rb_own_total() */
	fi
}

/* rb_cur_event() on the reader's own page, in place */
inline rb_cur_event()
{
	d_step {			/* rb_cur_event() */
		found = 0;
		do
		:: r_off < r_len ->
			kd = ckind[CI(r_pg, r_off)];
			assert(p_torn && kd != K_NONE);	/* RB_WARN */
			if
			:: kd == K_NONE -> r_off = r_len	/* RB_WARN path */
			:: kd == K_PAD -> r_off++
			:: kd == K_ABS -> ets = ctv[CI(r_pg, r_off)]; found = 1; break
			:: kd == K_DELTA -> ets = r_ts + ctv[CI(r_pg, r_off)]; found = 1; break
			fi
		:: else -> break
		od;
		kd = 0
	}
}

/* the reader accepts the event at r_off with stamp ets */
inline rd_accept(counted)
{
	d_step {
		evid = cid[CI(r_pg, r_off)];
		assert(p_torn && evid != 0 && cpay[CI(r_pg, r_off)] == evid &&
		       evst[evid] != ST_RESERVED && evpos[evid] == MKPOS(r_seq, r_off));
		assert(p_once && evst[evid] == ST_COMMITTED);
		assert(p_time && evts[evid] == ets && ets >= last_ts);
		evst[evid] = ST_READ;
		last_ts = ets;
		gh_read++;
		r_off++;		/* rb_cur_pass() */
		r_ts = ets;
		if
		:: counted -> nread++	/* rb_rd_consume() `WRITE_ONCE(cb->read)`, `cb->read` */
		:: else
		fi
	}
}

/* rb_rd_look(): next event for the consuming reader */
inline rb_rd_look()
{
	tries = 0;
	found = 0;
	do
	:: tries < RD_TRIES ->
		tries++;
		if
		:: r_off >= r_len && r_own && !r_done -> rb_own_len()	/* rb_rd_look() */
		:: else
		fi;
		rb_cur_event();		/* rb_rd_look() */
		if
		:: found -> break
		:: else
		fi;
		if
		:: r_own ->
			if
			:: !r_done -> break	/* rb_rd_look() */
			:: else
			fi;
			rb_rd_move(r_seq + 1)	/* rb_rd_look() */
		:: else ->
			rb_rd_sync();	/* rb_rd_look() */
			rb_has_data(r_seq);	/* rb_rd_look() */
			if
			:: !hasd -> break
			:: else
			fi;
			rb_take();	/* rb_rd_look() */
			rb_take_wait()
		fi
	:: else -> break
	od
}

/* ring_buffer_consume(): rb_read_one(consume) */
inline rd_consume()
{
	RB_LOCK();			/* rb_read_one() rb_lock() */
	rb_rd_look();			/* rb_read_one() */
	if
	:: found ->
		rd_lost(1);		/* rb_read_one() rb_take_lost() */
		rd_accept(1)		/* rb_read_one() rb_rd_consume() */
	:: else
	fi;
	RB_UNLOCK()
}

/* ring_buffer_peek(): rb_read_one(!consume), the event is checked only */
inline rd_peek()
{
	RB_LOCK();			/* rb_read_one() rb_lock() */
	rb_rd_look();			/* rb_read_one() */
	if
	:: found ->
		rd_lost(0);		/* rb_read_one() rb_take_lost(!consume) */
		d_step {
			evid = cid[CI(r_pg, r_off)];
			assert(p_torn && evid != 0 && cpay[CI(r_pg, r_off)] == evid &&
			       evst[evid] != ST_RESERVED && evpos[evid] == MKPOS(r_seq, r_off));
			assert(p_once && evst[evid] == ST_COMMITTED);
			assert(p_time && evts[evid] == ets && ets >= last_ts);
			evid = 0
		}
	:: else
	fi;
	RB_UNLOCK()
}

/* ring_buffer_read_page(): rb_rd_page() with room for a whole page */
inline rd_page()
{
	RB_LOCK();			/* ring_buffer_read_page() */
	gave = PG_NULL;
	rb_rd_look();			/* rb_rd_page() */
	if
	:: found ->
		rd_lost(1);		/* rb_rd_page() rb_take_lost() */
		if
		:: !r_done -> rb_own_len()	/* rb_rd_page() */
		:: else
		fi;
		tot = TOTAL_LOST;
		if
		:: r_done && r_off == 0 && r_len <= CAP && !MAPPED ->	/* rb_rd_page() */
			rb_own_total()	/* rb_rd_page() */
		:: else
		fi;
		if
		:: tot < TOTAL_ASK ->
			/*
			 * rb_rd_give(): the page goes to the caller,
			 * whose page becomes the spare.  The walk is what the
			 * caller finds in it.
			 */
			k = 0;
			do
			:: found -> rd_accept(0); k++; rb_cur_event()
			:: else -> break
			od;
			assert(p_count && k == tot);
			d_step {	/* rb_rd_give() `cb->rd.copy`, `cb->rd.copy =`, `cb->read`, `WRITE_ONCE(cb->read)` */
				nread = nread + tot;
				gave = r_pg;
				r_pg = upage;
				upage = gave
			};
			pg_check();
			rb_rd_move(r_seq + 1)	/* rb_rd_give() `cb->rd.seq` */
		:: else ->		/* rb_rd_span() */
			do
			:: found -> rd_accept(1); rb_cur_event()
			:: else -> break
			od
		fi
	:: else
	fi;
	RB_UNLOCK();
	if
	:: gave != PG_NULL ->
		d_step {		/* the caller writes its page */
			i = 0;
			do
			:: i < CAP ->
				cid[CI(gave, i)] = 0;
				ckind[CI(gave, i)] = K_NONE;
				cpay[CI(gave, i)] = 0;
				i++
			:: else -> break
			od;
			i = 0
		}
	:: else
	fi
}

#if MAPPED
/*
 * ring_buffer_map_get_reader(): rb_map_next().  What user space reads
 * through the mapping counts as read: the model checks those events in
 * place here.
 */
inline rd_map_next()
{
	RB_LOCK();			/* ring_buffer_map_get_reader() */
	tot = 0;
	if
	:: r_own ->
		rb_own_len();		/* rb_map_next() */
		if
		:: r_off < r_len ->	/* rb_map_next() */
			rb_cur_event();
			do
			:: found -> rd_accept(1); rb_cur_event()
			:: else -> break
			od;
			rd_lost(1);	/* rb_map_next() rb_take_lost() */
			tot = 1
		:: else ->
			if
			:: !r_done -> tot = 1	/* rb_map_next() */
			:: else -> rb_rd_move(r_seq + 1)	/* rb_map_next() */
			fi
		fi
	:: else
	fi;
	if
	:: tot == 0 ->
		tries = 0;
		do			/* rb_map_next() */
		:: !r_own && tries < RD_TRIES ->
			tries++;
			rb_rd_sync();
			rb_has_data(r_seq);
			if
			:: !hasd -> break
			:: else
			fi;
			rb_take();
			rb_take_wait()
		:: else -> break
		od;
		if
		:: r_own ->		/* rb_map_next() */
			rb_cur_event();
			do
			:: found -> rd_accept(1); rb_cur_event()
			:: else -> break
			od;
			rd_lost(1)	/* rb_map_next() rb_take_lost() */
		:: else
		fi
	:: else
	fi;
	RB_UNLOCK()
}
#endif

#ifdef SEQUENTIAL
proctype Reader() provided (SEQ_FREE)
#else
proctype Reader()
#endif
{
	RD_LOCALS;
	do
	:: ops < RD_OPS ->
		ops++;
#ifdef SEQUENTIAL
		SEQ_BEGIN();
#endif
#if RD_PEEK_PAGE
		if
		:: ops == 1 -> rd_peek()
		:: else -> rd_page()
		fi
#elif MAPPED
		if
		:: true -> rd_map_next()
		:: RD_PAGE -> rd_page()
		fi
#else
		if
		:: true -> rd_consume()
		:: RD_PAGE -> rd_page()
		fi
#endif
#ifdef SEQUENTIAL
		; SEQ_END()
#endif
	:: else -> break
	od;
	/* everyone else is done: read what is left, then count */
	(wdone == NWRITERS && ctl_done);
	pg_check();
	do
	::
#ifdef SEQUENTIAL
		SEQ_BEGIN();
		rd_consume();
		SEQ_END();
#else
		rd_consume();
#endif
		if
		:: !found -> break
		:: else
		fi
	od;
	skip;
	d_step {
		k = 0;
		i = 1;
		do
		:: i <= nid ->
			assert(p_commit && evst[i] != ST_RESERVED);
			if
			:: evst[i] == ST_COMMITTED || evst[i] == ST_LOST -> k++
			:: else
			fi;
			i++
		:: else -> break
		od;
		assert(p_commit && cpos == wpos);
		/* unread committed events are exactly the overrun */
		assert(p_once && k == overrun);
		assert(p_count && committed == gh_committed && nread == gh_read &&
		       committed == nread + overrun &&
		       dropped == gh_drop && commit_overrun == gh_cov)
	}
}

#if ITER_OPS
#define IT_LOCALS							\
	byte i_seq, i_off, i_len, i_ts, have, avail, copyts, ret;	\
	bit i_done, i_own, done, skipf, tagok;				\
	byte copy_id[CAP], copy_kind[CAP], copy_tv[CAP], copy_pay[CAP]

#ifdef MUTANT_ITER_TAKEN
#define TAG_OK(s)	(sseq[sbr] == (s))	/* blind to RB_TAKEN */
#else
#define TAG_OK(s)	(sseq[sbr] == (s) && !staken[sbr])
#endif

/* rb_cur_start() on the iterator's cursor */
inline it_move(s)
{
	d_step {
		i_seq = s;
		i_off = 0;
		i_len = 0;
		i_done = 0;
		i_own = 0;
		i_ts = 0
	}
}

/* rb_cur_event() on the iterator's copy */
inline it_cur_event()
{
	d_step {			/* rb_cur_event() */
		found = 0;
		do
		:: i_off < i_len ->
			assert(p_torn && copy_kind[i_off] != K_NONE);	/* RB_WARN */
			if
			:: copy_kind[i_off] == K_NONE -> i_off = i_len
			:: copy_kind[i_off] == K_PAD -> i_off++
			:: copy_kind[i_off] == K_ABS -> ets = copy_tv[i_off]; found = 1; break
			:: copy_kind[i_off] == K_DELTA -> ets = i_ts + copy_tv[i_off]; found = 1; break
			fi
		:: else -> break
		od;
		skip
	}
}

/* rb_cur_fill(): copy what is readable of i_seq from the ring, seqcount */
inline rb_cur_fill()
{
	sbr = SLOT(i_seq);
	have = i_len;
	c = cpos;			/* rb_cur_fill() `local64_read(&cb->commit)`, then `smp_rmb()` */
	skipf = 0;
	if
	:: PSEQ(c) == i_seq ->
		avail = POFF(c);	/* rb_cur_fill() */
		done = 0
	:: i_seq < PSEQ(c) ->
		avail = send[sbr];	/* rb_cur_fill() `READ_ONCE(sb->end)` */
		done = 1
	:: i_seq > PSEQ(c) ->
		skipf = 1		/* rb_cur_fill() */
	fi;
	if
	:: !skipf ->
		tagok = TAG_OK(i_seq);	/* rb_cur_fill() `atomic_long_read_acquire(&sb->tag)` */
		if
		:: !tagok -> ret = 1
		:: else ->
			pg = spage[sbr];	/* rb_cur_fill() `READ_ONCE(sb->page)` */
			if
			:: have == 0 -> copyts = pts[pg]	/* rb_cur_fill() `cur->copy->time_stamp =`, `page->time_stamp` */
			:: else
			fi;
			i = have;
			do		/* rb_cur_fill() memcpy, a cell at a time */
			:: i < avail ->
				atomic {
					copy_id[i] = cid[CI(pg, i)];
					copy_kind[i] = ckind[CI(pg, i)];
					copy_tv[i] = ctv[CI(pg, i)];
					copy_pay[i] = cpay[CI(pg, i)]
				};
				i++
			:: else -> break
			od;
#ifndef MUTANT_NO_SEQCHECK
			tagok = TAG_OK(i_seq);	/* rb_cur_fill() `smp_rmb()#2`, then `atomic_long_read(&sb->tag)` */
#endif
			if
			:: !tagok -> ret = 1
			:: else ->
				d_step {	/* rb_cur_fill() `cur->copy->time_stamp` */
					if
					:: have == 0 && i_off == 0 && avail > 0 -> i_ts = copyts
					:: else
					fi;
					if
					:: avail > i_len -> i_len = avail
					:: else
					fi;
					i_done = done
				}
			fi
		fi
	:: else
	fi
}

/* rb_iter_own_fill(): more of the page the reader owns, under the lock */
inline rb_iter_own_fill()
{
	have = i_len;
	rb_own_len();			/* rb_iter_own_fill() */
	d_step {			/* rb_iter_own_fill() `rd->copy->time_stamp` and the copy */
		if
		:: have == 0 && i_off == 0 -> i_ts = pts[r_pg]
		:: else
		fi;
		i = have;
		do
		:: i < r_len ->
			copy_id[i] = cid[CI(r_pg, i)];
			copy_kind[i] = ckind[CI(r_pg, i)];
			copy_tv[i] = ctv[CI(r_pg, i)];
			copy_pay[i] = cpay[CI(r_pg, i)];
			i++
		:: else -> break
		od;
		if
		:: r_len > i_len -> i_len = r_len
		:: else
		fi;
		i_done = r_done;
		i_own = 1
	}
}

/* rb_iter_fill(): refill the iterator's copy under reader_lock */
inline rb_iter_fill()
{
	ret = 0;
	RB_LOCK();			/* rb_iter_fill() */
	h = head;			/* rb_iter_fill() `atomic64_read_acquire(&cb->head)` */
	if
	:: r_own && r_seq == i_seq ->
		rb_iter_own_fill()	/* rb_iter_fill() `cb->rd.own`, `cb->rd.seq` */
	:: else ->
		if
		:: i_own ->
#ifdef MUTANT_ITER_TAKEN
			rb_cur_fill()	/* on through the ring, the page the reader left */
#else
			i_done = 1	/* rb_iter_fill() */
#endif
		:: else ->
			if
			:: i_seq < h ->	/* rb_iter_fill() dropped */
				it_move(h);
				ret = 1
			:: else ->
				rb_cur_fill()	/* rb_iter_fill() */
			fi
		fi
	fi;
	RB_UNLOCK()
}

/* the iterator shows the event at i_off with stamp ets */
inline it_show()
{
	d_step {
		evid = copy_id[i_off];
		assert(p_torn && evid != 0 && copy_pay[i_off] == evid &&
		       evst[evid] != ST_RESERVED && evst[evid] != ST_DISCARDED &&
		       evpos[evid] == MKPOS(i_seq, i_off));
		assert(p_time && evts[evid] == ets && ets >= last_ts);
		last_ts = ets;
		i_off++;		/* ring_buffer_iter_advance() rb_cur_pass() */
		i_ts = ets
	}
}

/*
 * ring_buffer_iter_peek() + ring_buffer_iter_advance(), ITER_OPS times,
 * on an iterator opened before anything was read (at sub-buffer 0).
 */
#ifdef SEQUENTIAL
proctype Iter() provided (SEQ_FREE)
#else
proctype Iter()
#endif
{
	RD_LOCALS;
	IT_LOCALS;
	do
	:: ops < ITER_OPS ->
		ops++;
#ifdef SEQUENTIAL
		SEQ_BEGIN();
#endif
		tries = 0;
		found = 0;
		do
		:: tries < RD_TRIES ->
			tries++;
			it_cur_event();	/* ring_buffer_iter_peek() */
			if
			:: found -> break
			:: else
			fi;
			if
			:: i_done ->
				it_move(i_seq + 1)	/* ring_buffer_iter_peek() */
			:: else ->
				rb_iter_fill();	/* ring_buffer_iter_peek() */
				if
				:: ret		/* ring_buffer_iter_peek() `smp_rmb()` */
				:: else ->
					if
					:: i_off >= i_len && !i_done -> break
					:: else
					fi
				fi
			fi
		:: else -> break
		od;
		if
		:: found -> it_show()
		:: else
		fi
#ifdef SEQUENTIAL
		; SEQ_END()
#endif
	:: else -> break
	od
}
#endif

/* ------------------------------------------------------------ control */
#if CONTROL
/* ring_buffer_reset_cpu(): hold writers, clear under reader_lock */
#ifdef SEQUENTIAL
proctype Control() provided (SEQ_FREE)
#else
proctype Control()
#endif
{
	byte base, j;
#ifdef SEQUENTIAL
	SEQ_BEGIN();
#endif
#ifndef MUTANT_NO_HOLD
	recdis = recdis + HELD;		/* rb_hold_writers() `atomic_add(&cb->record_disabled)` atomic_add() */
	in_cs == 0;			/* rb_hold_writers() synchronize_rcu() */
#endif
	atomic { rlock == 0 -> rlock = 1 };	/* rb_reset_one() */
	d_step {			/* rb_cpu_clear() */
		base = PSEQ(wpos) + 1;	/* rb_reset_one() `local64_read(&cb->write)` */
		j = 0;
		do			/* rb_untake() `atomic_long_read(&sb->tag)` */
		:: j < NR ->
			if
			:: staken[j] ->
				/* rb_untake() `sb->page =`, `sb->next`, `atomic_long_set(&sb->tag)` */
				spage[j] = snext[j];
				staken[j] = 0
			:: else
			fi;
			j++
		:: else -> break
		od;
		j = 0;
		do
		/* rb_slot_clear() `atomic_long_set(&sb->tag)`, `local_set(&sb->cum)`, `sb->retired =`, `sb->end =` */
		:: j < NR ->
			sseq[SLOT(base + j)] = base + j - NR;
			staken[SLOT(base + j)] = 0;
			cum[SLOT(base + j)] = 0;
			retired[SLOT(base + j)] = 0;
			send[SLOT(base + j)] = 0;
			j++
		:: else -> break
		od;
		sseq[SLOT(base)] = base;	/* rb_cpu_clear() `atomic_long_set(&first->tag)` */
		pts[spage[SLOT(base)]] = 0;	/* rb_cpu_clear() `first->page->time_stamp =` */
		pcmt[spage[SLOT(base)]] = 0;	/* rb_cpu_clear() `local_set(&first->page->commit)` */
		tail = SLOT(base);	/* rb_cpu_restart() `cb->tail =` */
		ptail = SLOT_NONE;	/* rb_cpu_restart() `cb->ptail =` */
		wpos = MKPOS(base, 0);	/* rb_cpu_restart() `local64_set(&cb->write)` */
		cpos = MKPOS(base, 0);	/* rb_cpu_restart() `local64_set(&cb->commit)` */
		top = TOP_NONE;		/* rb_cpu_restart() `cb->top =` */
		stamp = 0;		/* rb_cpu_restart() `cb->stamp =` */
		stamp_pos = POS_NONE;	/* rb_cpu_restart() `cb->stamp_pos =` */
		floor = 0;		/* rb_cpu_restart() `local64_set(&cb->floor)` */
		committed = 0;		/* rb_cpu_restart() `local_set(&cb->committed)` */
		overrun = 0;		/* rb_cpu_restart() `local_set(&cb->overrun)` */
		pushing = 0;		/* rb_cpu_restart() `local_set(&cb->pushing)` */
		commit_overrun = 0;	/* rb_cpu_restart() `local_set(&cb->commit_overrun)` */
		head = base;		/* rb_cpu_restart() `atomic64_set(&cb->head)` */
		r_seq = base;		/* rb_cur_start(&cb->rd, base) */
		r_off = 0;
		r_len = 0;
		r_done = 0;
		r_own = 0;
		r_ts = 0;
		pts[r_pg] = 0;		/* rb_cpu_restart() `cb->rd.copy->time_stamp =` */
		pcmt[r_pg] = 0;		/* rb_cpu_restart() `local_set(&cb->rd.copy->commit)` */
		nread = 0;		/* rb_cpu_restart() `cb->read =` */
		lost_seen = 0;		/* rb_cpu_restart() `cb->lost_seen =` */
		lost_mark = 0;		/* rb_cpu_restart() `cb->lost_mark =` */
		dropped = 0;		/* rb_reset_one() `atomic_long_set(&cb->dropped)` */
		/* ghost: what was not read is gone with the counters */
		j = 1;
		do
		:: j <= nid ->
			if
			:: evst[j] == ST_COMMITTED || evst[j] == ST_LOST -> evst[j] = ST_CLEARED
			:: else
			fi;
			j++
		:: else -> break
		od;
		gh_committed = 0;
		gh_drop = 0;
		gh_cov = 0;
		gh_read = 0
	};
	pg_check();
	rlock = 0;
#ifndef MUTANT_NO_HOLD
	recdis = recdis - HELD;		/* rb_release_writers() `smp_mb__before_atomic()`, `atomic_sub(&cb->record_disabled)` */
#endif
#ifdef SEQUENTIAL
	; SEQ_END()
#endif
	ctl_done = 1
}
#endif

init {
	byte j = 0;
	d_step {			/* rb_cpu_clear(cb, 0) from rb_cpu_alloc() */
		do
		:: j < NR ->
			sseq[j] = j - NR;
			spage[j] = j;	/* rb_alloc_ring() */
			snext[j] = PG_NULL;
			j++
		:: else -> break
		od;
		sseq[0] = 0;
#if PREFILL
		j = 0;
		do
		:: j < CAP ->
			ckind[CI(0, j)] = K_PAD;
			j++
		:: else -> break
		od;
		wpos = MKPOS(0, CAP);
		cpos = MKPOS(0, CAP);
#endif
		j = 0
	};
	atomic {
		run Task();
#if IRQ_EVENTS
		run Irq();
#endif
#if NMI_EVENTS
		run Nmi();
#endif
		run Reader();
#if ITER_OPS
		run Iter();
#endif
#if CONTROL
		run Control();
#endif
	}
}
