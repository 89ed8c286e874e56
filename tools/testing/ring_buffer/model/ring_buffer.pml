/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Promela model of the lockless protocol of kernel/trace/ring_buffer.c,
 * checked with Spin (see README in this directory and the section
 * "The protocol, model-checked" of Documentation/trace/ring-buffer.txt).
 *
 * Every step names the function and the line of ring_buffer.c it stands
 * for, as of commit c174541 (the file as last changed by d8f0b36,
 * "ring_buffer: rb_lock()'s comment above rb_lock(); the iterator copy
 * inside rb_cur_fill()"), except the steps of rb_tail_of(), rb_move(),
 * rb_set_tail(), rb_reserve(), the claim in rb_reserve_slow(), rb_push(),
 * rb_rd_move(), rb_rd_sync() and rb_take_lost(), which cite the file as of
 * bd0a9b1.  Lines move when the file changes: the function names are the
 * stable part.
 *
 * One CPU's ring is modelled: its writer in task context, an interrupt
 * and an NMI that nest into it (each runs to completion before the
 * context it interrupted goes on; with IRQ_ARRIVALS 2 the irq's events
 * come in up to two interrupts, each arriving anywhere), the consuming reader on another CPU
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
 *    the same cell.  A cell holds the header (id, kind, stamp field),
 *    written in one step by rb_fill_event(), and the payload, written in
 *    a second step by the caller.  A reader that looks at a cell between
 *    the two steps sees a torn event.  A page's commit word holds a cell
 *    count.
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
#elif defined(CFG_PC)
/* Producer/consumer mode: a full ring drops; the reader makes room. */
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
hidden byte pgi, pgj, pgn;		/* pg_check()'s counters */

#ifdef LIVE
ltl wprog { <> (wdone == NWRITERS) }
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
	byte w, w2, off, sb, ts, st, sp, prev, id, nseq, r, h, c, n, end, op, ntop, k, pg, s2, pv; \
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
		in_cs++;		/* rb_enter() L1039 preempt_disable_notrace() */
		if
		:: recdis != 0 ->	/* rb_enter() L1051 atomic_read_acquire(record_disabled) */
			dropped++;	/* rb_enter() L1054 */
			gh_drop++;
			ok = 0;
#ifdef MUTANT_LEAK_PREEMPT
			skip		/* the refusal keeps preemption off */
#else
			in_cs--		/* rb_enter() L1068 preempt_enable_notrace() */
#endif
		:: else
		fi
	};
#endif
	if
	:: ok ->
		prev = top;		/* rb_enter() L1058 wc->prev = READ_ONCE(cb->top) */
		if
		:: key > prev ->
			top = key	/* rb_enter() L1060 */
		:: prev == key ->
			top = key + 1	/* rb_guard_retry() L972 */
		:: else ->
			ok = 0
#if CONTROL
			; in_cs--	/* rb_enter() L1068 */
#endif
		fi
	:: else
	fi
}

/* rb_push(): overwrite mode retires sub-buffer r (slot sb) */
inline rb_push()
{
	n = cum[sb] - retired[sb];	/* rb_push() L643 */
#ifndef MUTANT_LATE_OVERRUN
	pushing++;			/* rb_push() L651 local_inc(pushing) */
#endif
	atomic {			/* rb_push() L658 atomic64_try_cmpxchg(head) */
		if
		:: head == r -> head = r + 1; got = 1
		:: else -> got = 0
		fi
	};
	if
	:: got ->
#ifndef MUTANT_NO_OVERRUN
		overrun = overrun + n	/* rb_push() L659 local_add(n, overrun) */
#else
		skip
#endif
	:: else ->
		h = head		/* rb_push() L661 atomic64_read_acquire(head) */
	fi;
#ifndef MUTANT_LATE_OVERRUN
	pushing--			/* rb_push() L664 local_dec(pushing), after smp_wmb() L663 */
#else
	skip				/* no pushing: a reader may see head before overrun */
#endif
}

/* rb_tail_of(s): cb->tail if its slot's tag is s, else the slot of s */
inline rb_tail_of(s, out)
{
	out = tail;			/* rb_tail_of() L592 READ_ONCE(cb->tail) */
	if
	:: sseq[out] == (s)		/* rb_tail_of() L594 rb_tag_is(atomic_long_read(tag)) */
	:: else -> out = SLOT(s)	/* rb_tail_of() L596 rb_slot_of() */
	fi
}

/* rb_mark(): slot sb takes sub-buffer nseq (and, if taken, the spare) */
inline rb_mark()
{
#ifdef MUTANT_CUM_AFTER_TAG
	atomic { old = sseq[sb]; otk = staken[sb] };	/* the tag first */
	c = cum[sb];			/* then the count */
#else
	c = cum[sb];			/* rb_mark() L593 */
	atomic { old = sseq[sb]; otk = staken[sb] };	/* rb_mark() L602 atomic_long_read(tag) */
#endif
	if
	:: old == nseq			/* rb_mark() L607 marked by a nested writer */
	:: old > nseq -> res = R_AGAIN	/* rb_mark() L609 */
	:: old < nseq ->
#if !defined(MUTANT_NO_TAKEN_CHECK) && !defined(MUTANT_PAGE_AFTER_TAG)
		if
		:: otk ->		/* rb_mark() L611 */
			retired[sb] = c;	/* rb_mark() L618 */
			spage[sb] = snext[sb]	/* rb_mark() L619 */
		:: else
		fi;
#endif
		atomic {		/* rb_mark() L626 atomic_long_try_cmpxchg(tag) */
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
			retired[sb] = c	/* rb_mark() L629, smp_wmb() L631 */
		:: else
		fi;
		pg_check()
	fi
}

/* rb_move() with rb_make_room(): start sub-buffer PSEQ(w) + 1 */
inline rb_move()
{
	nseq = PSEQ(w) + 1;		/* rb_move() L727 */
	rb_tail_of(nseq - 1, pv);	/* rb_move() L728 prev */
	sb = SLOT(nseq);		/* rb_move() L729 */
	res = R_OK;
	if
	:: nseq >= NR ->		/* rb_make_room() L662 */
		r = nseq - NR;
		c = cpos;		/* rb_make_room() L663 local64_read(commit) */
#ifndef MUTANT_NO_COMMIT_CHECK
		if
		:: !(r < PSEQ(c)) ->	/* rb_make_room() L665 */
			atomic { commit_overrun++; gh_cov++ };	/* L666 */
			res = R_FAIL
		:: else
		fi;
#endif
		if
		:: res == R_OK ->
			h = head;	/* rb_make_room() L670 read_acquire(head) */
			if
			:: !(r < h) ->	/* rb_make_room() L671-L672 */
				if
				:: !OVERWRITE ->
#ifdef MUTANT_NO_DROP_COUNT
					gh_drop++;	/* refused, not counted */
#else
					atomic { dropped++; gh_drop++ };	/* L673 */
#endif
					res = R_FAIL
				:: else ->
					rb_push()	/* rb_make_room() L676 */
				fi
			:: else
			fi
		:: else
		fi
	:: else
	fi;
	if
	:: res == R_OK -> rb_mark()	/* rb_make_room() L679 */
	:: else
	fi;
	if
	:: res == R_OK ->
		atomic {		/* rb_move() L738 local64_try_cmpxchg(write) */
			if
			:: wpos == w -> wpos = MKPOS(nseq, 1)
			:: else -> res = R_AGAIN
			fi
		}
	:: else
	fi;
	if
	:: res == R_OK ->
		send[pv] = POFF(w);	/* rb_move() L741 WRITE_ONCE(prev->end) */
#ifdef MUTANT_STALE_TAIL
		tail = sb		/* one store, write not looked at again */
#else
		t2 = nseq;		/* rb_move() L742 rb_set_tail() */
		do
		:: tail = SLOT(t2);	/* rb_set_tail() L710 WRITE_ONCE(cb->tail) */
			k2 = PSEQ(wpos);	/* rb_set_tail() L712 local64_read(write) */
			if
			:: k2 == t2 -> break	/* rb_set_tail() L713-L714 */
			:: else -> t2 = k2	/* rb_set_tail() L715 */
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
		w = wpos;		/* rb_reserve_slow() L778 */
#endif
		st = stamp;		/* rb_reserve_slow() L786 */
		sp = stamp_pos;		/* rb_reserve_slow() L787 */
		atomic { clk++; ts = clk };	/* rb_reserve_slow() L788 rb_clock() */
		d_step {		/* rb_reserve_slow() L789-L798 */
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
		:: off + 1 <= CAP ->	/* rb_reserve_slow() L799 */
			atomic {	/* rb_reserve_slow() L800 cmpxchg(write) */
				if
				:: wpos == w -> wpos = w + 1; res = R_OK
				:: else -> res = R_AGAIN
				fi
			};
			if
			:: res == R_OK ->
				rb_tail_of(PSEQ(w), sb);	/* rb_reserve_slow() L832 */
				end = w + 1
			:: else
			fi
		:: else ->
			rb_move();	/* rb_reserve_slow() L804 */
			if
			:: res == R_OK ->	/* rb_reserve_slow() L809-L812 */
				w = MKPOS(nseq, 0);
				off = 0;
				abs = 0;
				dl = 0;
				end = w + 1
			:: else
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
	:: prev == TOP_NONE ->		/* rb_reserve() L865 not nested */
		w = wpos;		/* rb_reserve() L867 */
		atomic { clk++; ts = clk };	/* rb_reserve() L869 rb_clock() */
		dl = ts - stamp;	/* rb_reserve() L871 */
		off = POFF(w);
		sb = tail;		/* rb_reserve() L878 READ_ONCE(cb->tail) */
		if
		:: stamp_pos == w && dl >= 0 && off != 0 && off + 1 <= CAP ->
					/* rb_reserve() L883-L885 */
			atomic {	/* rb_reserve() L886 cmpxchg(write) */
				if
				:: wpos == w -> wpos = w + 1; res = R_OK
				:: else
				fi
			}
		:: else
		fi;
		if
		:: res == R_OK ->	/* rb_reserve() L888: sb as read from tail */
			end = w + 1;
			abs = 0
		:: else
		fi
	:: else
	fi;
	if
	:: res != R_OK ->
		rb_reserve_slow(prev != TOP_NONE)	/* rb_reserve() L866/L887 */
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
		:: counted ->		/* rb_claimed() L755 rb_count() for ring_buffer_write() */
			cum[sb]++;
			committed++;
			gh_committed++
		:: else
		fi
	};
	stamp = ts;			/* rb_claimed() L757 */
	stamp_pos = end;		/* rb_claimed() L759 */
#ifndef MUTANT_STAMP_NORECHECK
	if
	:: stamp != ts -> stamp_pos = POS_NONE	/* rb_claimed() L761-L762 */
	:: else
	fi
#endif
}

/* rb_fill_event(): page stamp and header in one step, into sb->page */
inline rb_fill()
{
	atomic {			/* rb_fill_event() L713-L726 */
		/* the slot the writer found holds the sub-buffer it claimed in */
		assert(p_slot && sb == SLOT(PSEQ(w)));
		pg = spage[sb];
		if
		:: off == 0 -> pts[pg] = ts
		:: else
		fi;
		cid[CI(pg, off)] = id;
		if
		:: abs -> ckind[CI(pg, off)] = K_ABS; ctv[CI(pg, off)] = ts
		:: else -> ckind[CI(pg, off)] = K_DELTA; ctv[CI(pg, off)] = dl
		fi
	}
}

/*
 * rb_set_page_commit() with rb_page_commits(): before commit moves on to
 * w2, every page it passes gets its final length in its commit word.
 */
inline rb_set_page_commit()
{
	if
	:: tail != ptail ->		/* rb_set_page_commit() L907 */
		s2 = PSEQ(cpos);	/* rb_page_commits() L874 */
		do
		:: s2 != PSEQ(w2) ->
			atomic {	/* rb_page_commits() L880 */
#ifndef MUTANT_NO_PAGE_COMMIT
				pcmt[spage[SLOT(s2)]] = send[SLOT(s2)];
#endif
				s2++
			}
		:: else -> break
		od;
#if MAPPED
		/* rb_page_commits() L888-L891 after smp_wmb() L886: the live length */
		atomic { pcmt[spage[SLOT(PSEQ(w2))]] = POFF(w2); ptail = SLOT_NONE }
#else
		ptail = SLOT(PSEQ(w2))	/* rb_page_commits() L892 after smp_wmb() L886 */
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
		top = prev		/* rb_end_commit() L925 */
#endif
	:: else ->
		do
		:: w2 = wpos;		/* rb_end_commit() L929 */
			rb_set_page_commit();	/* rb_end_commit() L937 after smp_wmb() L936 */
			d_step {	/* rb_end_commit() L938 */
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
			top = TOP_NONE;	/* rb_end_commit() L940 */
			if
#ifdef MUTANT_NO_RECHECK
			:: true -> break
#else
			:: wpos == w2 -> break	/* rb_end_commit() L942 */
			:: else -> top = TOP_BUSY	/* rb_end_commit() L945 */
#endif
			fi
		od
	fi
#if CONTROL
	; in_cs--			/* rb_leave() L1080 preempt_enable_notrace() */
#endif
}

/*
 * One event: ring_buffer_lock_reserve() + payload + unlock_commit() or
 * discard_commit(), or ring_buffer_write() (op OP_WRITE).
 */
inline wr_event(key)
{
	rb_enter(key);			/* ring_buffer_lock_reserve() L1107 / ring_buffer_write() L1212 */
	if
	:: ok ->
		rb_reserve();		/* ring_buffer_lock_reserve() L1113 / ring_buffer_write() L1216 */
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
			atomic {	/* the caller's payload / ring_buffer_write() L1218 memcpy */
				cpay[CI(pg, off)] = id;
				if
				:: op == OP_WRITE -> evst[id] = ST_COMMITTED
				:: else
				fi
			};
			if
			:: op == OP_COMMIT ->
				atomic {	/* ring_buffer_unlock_commit() L1157 rb_count() */
					cum[sb]++;
					committed++;
					gh_committed++;
					evst[id] = ST_COMMITTED
				}
			:: op == OP_DISCARD ->
				atomic {	/* ring_buffer_discard_commit() L1182 cmpxchg(write) */
					if
					:: wpos == end -> wpos = w; got = 1
					:: else -> got = 0
					fi;
					evst[id] = ST_DISCARDED
				};
				if
				:: got -> stamp_pos = POS_NONE	/* discard_commit() L1184 */
				:: else -> ckind[CI(pg, off)] = K_PAD	/* discard_commit() L1186-L1189 */
				fi
			:: op == OP_WRITE
			fi
		:: else
		fi;
		rb_leave()		/* lock_reserve() L1115 / unlock_commit() L1158 / discard_commit() L1191 / write() L1221 */
	:: else
	fi
}

/* ring_buffer_nest_start(): let this context in once more */
inline nest_start(key)
{
	if
	:: top >= key ->		/* ring_buffer_nest_start() L1253 */
		ntop = top;		/* ring_buffer_nest_start() L1254 */
		top = key - 1;		/* ring_buffer_nest_start() L1256 */
		nset = 1
	:: else -> nset = 0
	fi
}

/* ring_buffer_nest_end() */
inline nest_end(key)
{
	if
	:: nset && top == key - 1 -> top = ntop	/* ring_buffer_nest_end() L1282-L1284 */
	:: else
	fi
}

proctype Task() provided (ctx == 0)
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
				atomic {	/* ring_buffer_unlock_commit() L1157 rb_count() */
					cum[sb]++;
					committed++;
					gh_committed++;
					evst[id] = ST_COMMITTED
				};
				rb_leave()
			:: else
			fi
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
		atomic { ctx == 0 -> ctx = 1; irq_in = 1; arr++ };	/* an interrupt arrives */
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
	atomic { ctx == 0 -> ctx = 1; irq_in = 1 };	/* the interrupt arrives */
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
	atomic { ctx < 2 -> saved = ctx; ctx = 2; nmi_in = 1 };
	do
	:: e < NMI_EVENTS ->
		e++;
		op = OP_WRITE;
		wr_event(KEY_NMI)
	:: else -> break
	od;
	atomic { nmi_in = 0; ctx = saved; wdone++ }
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
	d_step {			/* rb_rd_move() L1446 rb_cur_start() */
		r_seq = s;
		r_off = 0;
		r_len = 0;
		r_done = 0;
		r_own = 0;
		r_ts = 0
	};
	lost_mark = overrun		/* rb_rd_move() L1447 local_read(overrun) */
}

/* rb_rd_sync(): catch up with a writer that pushed our sub-buffer */
inline rb_rd_sync()
{
	if
	:: r_own			/* rb_rd_sync() L1461 */
	:: else ->
		h = head;		/* rb_rd_sync() L1464 atomic64_read_acquire(head) */
		if
		:: h != r_seq ->	/* rb_rd_sync() L1465 */
#ifdef MUTANT_LATE_OVERRUN
			rb_rd_move(h)	/* no push in flight to wait for */
#else
			if
			:: pushing == 0 -> rb_rd_move(h)	/* rb_rd_sync() L1465-L1468 */
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
	d_step {			/* rb_take_lost() L1623-L1626 */
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
	d_step {			/* rb_has_data() L1477-L1480 */
		c = cpos;
		hasd = (s < PSEQ(c) || (s == PSEQ(c) && POFF(c) != 0))
	}
}

/* rb_own_len(): how far the reader's own page is readable */
inline rb_own_len()
{
	c = cpos;			/* rb_own_len() L1436, smp_rmb() L1444 */
	if
	:: PSEQ(c) == r_seq ->
		d_step {		/* rb_own_len() L1446, L1451 */
			ln = POFF(c);
#ifdef MUTANT_EARLY_DONE
			r_done = 1;	/* as if the writer had left it */
#endif
			if
			:: ln > r_len -> r_len = ln
			:: else
			fi
		}
	:: else ->
		atomic {		/* rb_own_len() L1448-L1451 */
			r_done = 1;
			ln = pcmt[r_pg];
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
	sbr = SLOT(r_seq);
	atomic {			/* rb_take() L1506-L1508 after smp_rmb() L1505 */
		pg = spage[sbr];
		base = retired[sbr];
		spare = r_pg
	};
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
	atomic { took = (sseq[sbr] == r_seq && !staken[sbr]); moved = !took };
#endif
#ifndef MUTANT_TAG_BEFORE_NEXT
	if
	:: took -> snext[sbr] = r_pg	/* rb_take() L1510 */
	:: else
	fi;
#endif
	atomic {			/* rb_take() L1519 atomic_long_try_cmpxchg(tag) */
		if
		:: took && sseq[sbr] == r_seq && !staken[sbr] ->
			staken[sbr] = 1;
			took = 1;
			r_pg = pg	/* rb_take() L1521 */
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
#elif defined(MUTANT_TAKE_SKIPS_HEAD)
		skip;			/* head is left alone */
#else
		atomic {		/* rb_take() L1528 atomic64_try_cmpxchg(head) */
			if
			:: head == r_seq -> head = r_seq + 1
			:: else -> took = 0
			fi
		};
#endif
		if
		:: took ->
			d_step {	/* rb_take() L1530-L1533 */
				r_own = 1;
				rd_sbi = sbr;
				rd_base = base;
				rd_total = TOTAL_ASK
			};
			rb_own_len();	/* rb_take() L1534 */
			r_ts = pts[r_pg]	/* rb_take() L1535 */
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
	:: rd_total != TOTAL_ASK -> tot = rd_total	/* rb_own_total() L1552 */
	:: else ->
		c = cum[rd_sbi];	/* rb_own_total() L1554 */
		atomic { tq = sseq[rd_sbi]; tk = staken[rd_sbi] };	/* L1557 after smp_rmb() L1556 */
		if
		:: tq == r_seq && tk -> tot = c - rd_base	/* L1558 */
		:: else ->
			c = retired[rd_sbi];	/* rb_own_total() L1560 */
			atomic { tq = sseq[rd_sbi]; tk = staken[rd_sbi] };	/* L1563 after smp_rmb() L1562 */
			if
			:: tq == r_seq + NR && !tk -> tot = c - rd_base	/* L1564 */
			:: else -> tot = TOTAL_LOST
			fi
		fi;
		rd_total = tot		/* rb_own_total() L1566 */
	fi
}

/* rb_cur_event() on the reader's own page, in place */
inline rb_cur_event()
{
	d_step {			/* rb_cur_event() L1390-L1413 */
		found = 0;
		do
		:: r_off < r_len ->
			kd = ckind[CI(r_pg, r_off)];
			assert(p_torn && kd != K_NONE);	/* RB_WARN L1393 */
			if
			:: kd == K_NONE -> r_off = r_len	/* RB_WARN path L1394 */
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
		r_off++;		/* rb_cur_pass() L1419-L1420 */
		r_ts = ets;
		if
		:: counted -> nread++	/* rb_rd_consume() L1621 */
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
		:: r_off >= r_len && r_own && !r_done -> rb_own_len()	/* rb_rd_look() L1584-L1585 */
		:: else
		fi;
		rb_cur_event();		/* rb_rd_look() L1586 */
		if
		:: found -> break
		:: else
		fi;
		if
		:: r_own ->
			if
			:: !r_done -> break	/* rb_rd_look() L1590 */
			:: else
			fi;
			rb_rd_move(r_seq + 1)	/* rb_rd_look() L1592 */
		:: else ->
			rb_rd_sync();	/* rb_rd_look() L1595 */
			rb_has_data(r_seq);	/* rb_rd_look() L1596 */
			if
			:: !hasd -> break
			:: else
			fi;
			rb_take();	/* rb_rd_look() L1598 */
			rb_take_wait()
		fi
	:: else -> break
	od
}

/* ring_buffer_consume(): rb_read_one(consume) */
inline rd_consume()
{
	RB_LOCK();			/* rb_read_one() L1647 rb_lock() */
	rb_rd_look();			/* rb_read_one() L1648 */
	if
	:: found ->
		rd_lost(1);		/* rb_read_one() L1648 rb_take_lost() */
		rd_accept(1)		/* rb_read_one() L1650 rb_rd_consume() */
	:: else
	fi;
	RB_UNLOCK()
}

/* ring_buffer_peek(): rb_read_one(!consume), the event is checked only */
inline rd_peek()
{
	RB_LOCK();			/* rb_read_one() L1647 rb_lock() */
	rb_rd_look();			/* rb_read_one() L1648 */
	if
	:: found ->
		rd_lost(0);		/* rb_read_one() L1648 rb_take_lost(!consume) */
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
	RB_LOCK();			/* ring_buffer_read_page() L1981 */
	gave = PG_NULL;
	rb_rd_look();			/* rb_rd_page() L1914 */
	if
	:: found ->
		rd_lost(1);		/* rb_rd_page() L1913/L1919 rb_take_lost() */
		if
		:: !r_done -> rb_own_len()	/* rb_rd_page() L1916-L1917 */
		:: else
		fi;
		tot = TOTAL_LOST;
		if
		:: r_done && r_off == 0 && r_len <= CAP && !MAPPED ->	/* rb_rd_page() L1923 */
			rb_own_total()	/* rb_rd_page() L1924 */
		:: else
		fi;
		if
		:: tot < TOTAL_ASK ->
			/*
			 * rb_rd_give() L1895-L1899: the page goes to the caller,
			 * whose page becomes the spare.  The walk is what the
			 * caller finds in it.
			 */
			k = 0;
			do
			:: found -> rd_accept(0); k++; rb_cur_event()
			:: else -> break
			od;
			assert(p_count && k == tot);
			d_step {
				nread = nread + tot;
				gave = r_pg;
				r_pg = upage;
				upage = gave
			};
			pg_check();
			rb_rd_move(r_seq + 1)	/* rb_rd_give() L1899 */
		:: else ->		/* rb_rd_span() L1856-L1880 */
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
	RB_LOCK();			/* ring_buffer_map_get_reader() L4116 */
	tot = 0;
	if
	:: r_own ->
		rb_own_len();		/* rb_map_next() L4055 */
		if
		:: r_off < r_len ->	/* rb_map_next() L4056-L4060 */
			rb_cur_event();
			do
			:: found -> rd_accept(1); rb_cur_event()
			:: else -> break
			od;
			rd_lost(1);	/* rb_map_next() rb_take_lost() */
			tot = 1
		:: else ->
			if
			:: !r_done -> tot = 1	/* rb_map_next() L4062-L4063 */
			:: else -> rb_rd_move(r_seq + 1)	/* rb_map_next() L4064 */
			fi
		fi
	:: else
	fi;
	if
	:: tot == 0 ->
		tries = 0;
		do			/* rb_map_next() L4066-L4071 */
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
		:: r_own ->		/* rb_map_next() L4075-L4076 */
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

proctype Reader()
{
	RD_LOCALS;
	do
	:: ops < RD_OPS ->
		ops++;
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
	:: else -> break
	od;
	/* everyone else is done: read what is left, then count */
	(wdone == NWRITERS && ctl_done);
	pg_check();
	do
	:: rd_consume();
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
	d_step {			/* rb_cur_event() L1390-L1413 */
		found = 0;
		do
		:: i_off < i_len ->
			assert(p_torn && copy_kind[i_off] != K_NONE);	/* RB_WARN L1393 */
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
	c = cpos;			/* rb_cur_fill() L1339, smp_rmb() L1346 */
	skipf = 0;
	if
	:: PSEQ(c) == i_seq ->
		avail = POFF(c);	/* rb_cur_fill() L1348 */
		done = 0
	:: i_seq < PSEQ(c) ->
		avail = send[sbr];	/* rb_cur_fill() L1351 */
		done = 1
	:: i_seq > PSEQ(c) ->
		skipf = 1		/* rb_cur_fill() L1355 */
	fi;
	if
	:: !skipf ->
		tagok = TAG_OK(i_seq);	/* rb_cur_fill() L1359 atomic_long_read_acquire(tag) */
		if
		:: !tagok -> ret = 1
		:: else ->
			pg = spage[sbr];	/* rb_cur_fill() L1361 */
			if
			:: have == 0 -> copyts = pts[pg]	/* rb_cur_fill() L1364 */
			:: else
			fi;
			i = have;
			do		/* rb_cur_fill() L1368 memcpy, a cell at a time */
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
			tagok = TAG_OK(i_seq);	/* rb_cur_fill() L1373 after smp_rmb() L1372 */
#endif
			if
			:: !tagok -> ret = 1
			:: else ->
				d_step {	/* rb_cur_fill() L1375-L1378 */
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
	rb_own_len();			/* rb_iter_own_fill() L2038 */
	d_step {			/* rb_iter_own_fill() L2039-L2046 */
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
	RB_LOCK();			/* rb_iter_fill() L2063 */
	h = head;			/* rb_iter_fill() L2064 */
	if
	:: r_own && r_seq == i_seq ->
		rb_iter_own_fill()	/* rb_iter_fill() L2072-L2073 */
	:: else ->
		if
		:: i_own ->
#ifdef MUTANT_ITER_TAKEN
			rb_cur_fill()	/* on through the ring, the page the reader left */
#else
			i_done = 1	/* rb_iter_fill() L2074-L2076 */
#endif
		:: else ->
			if
			:: i_seq < h ->	/* rb_iter_fill() L2077-L2080 dropped */
				it_move(h);
				ret = 1
			:: else ->
				rb_cur_fill()	/* rb_iter_fill() L2083 */
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
		i_off++;		/* ring_buffer_iter_advance() L2208 rb_cur_pass() */
		i_ts = ets
	}
}

/*
 * ring_buffer_iter_peek() + ring_buffer_iter_advance(), ITER_OPS times,
 * on an iterator opened before anything was read (at sub-buffer 0).
 */
proctype Iter()
{
	RD_LOCALS;
	IT_LOCALS;
	do
	:: ops < ITER_OPS ->
		ops++;
		tries = 0;
		found = 0;
		do
		:: tries < RD_TRIES ->
			tries++;
			it_cur_event();	/* ring_buffer_iter_peek() L2174 */
			if
			:: found -> break
			:: else
			fi;
			if
			:: i_done ->
				it_move(i_seq + 1)	/* ring_buffer_iter_peek() L2177-L2178 */
			:: else ->
				rb_iter_fill();	/* ring_buffer_iter_peek() L2181 */
				if
				:: ret		/* ring_buffer_iter_peek() L2184-L2187 smp_rmb() */
				:: else ->
					if
					:: i_off >= i_len && !i_done -> break	/* L2189 */
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
	:: else -> break
	od
}
#endif

/* ------------------------------------------------------------ control */
#if CONTROL
/* ring_buffer_reset_cpu(): hold writers, clear under reader_lock */
proctype Control()
{
	byte base, j;
#ifndef MUTANT_NO_HOLD
	recdis = recdis + HELD;		/* rb_hold_writers() L2558 atomic_add() */
	in_cs == 0;			/* rb_hold_writers() L2559 synchronize_rcu() */
#endif
	atomic { rlock == 0 -> rlock = 1 };	/* rb_reset_one() L2754 */
	d_step {			/* rb_cpu_clear() L2334-L2364 */
		base = PSEQ(wpos) + 1;	/* rb_reset_one() L2755 */
		j = 0;
		do			/* rb_untake() L2312-L2326 */
		:: j < NR ->
			if
			:: staken[j] ->
				spage[j] = snext[j];
				staken[j] = 0
			:: else
			fi;
			j++
		:: else -> break
		od;
		j = 0;
		do
		:: j < NR ->		/* rb_slot_clear() L2298-L2304 */
			sseq[SLOT(base + j)] = base + j - NR;
			staken[SLOT(base + j)] = 0;
			cum[SLOT(base + j)] = 0;
			retired[SLOT(base + j)] = 0;
			send[SLOT(base + j)] = 0;
			j++
		:: else -> break
		od;
		sseq[SLOT(base)] = base;	/* rb_cpu_clear() L2342-L2344 */
		pts[spage[SLOT(base)]] = 0;
		pcmt[spage[SLOT(base)]] = 0;
		tail = SLOT(base);
		ptail = SLOT_NONE;
		wpos = MKPOS(base, 0);
		cpos = MKPOS(base, 0);
		top = TOP_NONE;
		stamp = 0;
		stamp_pos = POS_NONE;
		committed = 0;
		overrun = 0;
		pushing = 0;		/* rb_cpu_clear() L2392 */
		commit_overrun = 0;
		head = base;
		r_seq = base;		/* rb_cur_start(&cb->rd, base) L2358 */
		r_off = 0;
		r_len = 0;
		r_done = 0;
		r_own = 0;
		r_ts = 0;
		pts[r_pg] = 0;		/* rb_cpu_clear() L2359-L2360 */
		pcmt[r_pg] = 0;
		nread = 0;
		lost_seen = 0;		/* rb_cpu_clear() L2401-L2402 */
		lost_mark = 0;
		dropped = 0;		/* rb_reset_one() L2760 */
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
	recdis = recdis - HELD;		/* rb_release_writers() L2569 */
#endif
	ctl_done = 1
}
#endif

init {
	byte j = 0;
	d_step {			/* rb_cpu_clear(cb, 0) from rb_cpu_alloc() L2405 */
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
