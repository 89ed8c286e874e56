/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * Promela model of the lockless protocol of kernel/trace/ring_buffer.c,
 * checked with Spin (see README in this directory and the section
 * "The protocol, model-checked" of Documentation/trace/ring-buffer.txt).
 *
 * Every step names the function and the line of ring_buffer.c it stands
 * for, as of commit ee94c24 ("ring_buffer_selftest: u64 remainders through
 * div_u64_rem() ...").  Lines move when the file changes: the function
 * names are the stable part.
 *
 * One CPU's ring is modelled: its writer in task context, an interrupt
 * and an NMI that nest into it (each runs to completion before the
 * context it interrupted goes on), a consuming reader on another CPU and
 * a control path (reset under the writer hold).  A configuration (CFG_*,
 * chosen with spin -DCFG_x) picks the actors and the geometry.
 *
 * What is abstracted:
 *  - Memory is sequentially consistent, one Promela statement is one
 *    access (or one local64/atomic read-modify-write).  The barriers that
 *    make a weakly ordered CPU behave like this are argued separately
 *    (the barrier table in the Documentation file).
 *  - An event takes one cell of a sub-buffer; its TIME_STAMP prefix (pre)
 *    lives in the same cell.  A cell holds the header (id, kind, stamp
 *    field), written in one step by rb_fill_event(), and the payload,
 *    written in a second step by the caller.  A reader that copies a cell
 *    between the two steps sees a torn event.
 *  - The clock is one global counter that every rb_clock() call moves on.
 *    Deltas never exceed 27 bits, except that a negative one (the clock
 *    read before a nested writer's) stands for the u64 wrap.
 *  - cb->tail is not modelled: rb_tail_of() returns slot seq % NR.
 *  - The per-slot stack of open reserves (slot->w[], rb_pop) is each
 *    actor's local variables.  Lost-event reporting, waiters, iterators,
 *    resize and order changes are not modelled.
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
 *           whole-page count matches its events
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
/* nest_start/nest_end around a second reserve, interrupted by an irq. */
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
/* An iterator (ring_buffer_iter_peek) while the writer laps it. */
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
#define RD_OPS	0
#endif
#ifndef ITER_OPS
#define ITER_OPS	2
#endif
#elif defined(CFG_WRAP)
/* An irq writer wraps the ring onto the open reserve it interrupted. */
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
#ifndef RD_OPS
#define RD_OPS	1
#endif
#else
#error "choose a configuration: -DCFG_NEST, LAP, PC, GUARD, RESET, ITER or WRAP"
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
#ifndef CONTROL
#define CONTROL		0
#endif
#ifndef ITER_OPS
#define ITER_OPS	0
#endif
#define NWRITERS	(1 + (IRQ_EVENTS > 0) + (NMI_EVENTS > 0))

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

#define PSEQ(p)		((p) / B)	/* rb_pseq() */
#define POFF(p)		((p) % B)	/* rb_poff() */
#define MKPOS(s, o)	((s) * B + (o))	/* rb_mkpos() */
#define SLOT(s)		((s) % NR)	/* rb_slot_of() */
#define CI(sb, o)	((sb) * CAP + (o))

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
byte committed, overrun, commit_overrun, dropped;
/* shared */
byte head;				/* cb->head */
byte recdis;				/* cb->record_disabled / RB_HELD */
/* struct rb_subbuf, per slot */
short sseq[NR];				/* sb->seq */
byte cum[NR];				/* sb->cum */
byte retired[NR];			/* sb->retired */
byte send[NR];				/* sb->end */
byte pts[NR];				/* sb->page->time_stamp */
/* sub-buffer data, CAP cells per slot */
byte cid[NR * CAP];			/* header: which event */
byte ckind[NR * CAP];			/* header: type_len */
byte ctv[NR * CAP];			/* header: delta or absolute stamp */
byte cpay[NR * CAP];			/* payload */
/*
 * The consuming reader's state (cb->rd, rd_cnt, read, ...) is local to
 * the Reader: only code under reader_lock touches it.  rb_cpu_clear()
 * resets it through rst_gen/rst_base, applied when the Reader next takes
 * the lock (the same state at every point where the Reader can look).
 */
bit rlock;				/* cb->reader_lock */
byte rst_gen, rst_base;
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
byte gh_committed, gh_drop, gh_cov;

/* property tags: a violated assertion names its property */
hidden byte p_once = 1, p_torn = 1, p_time = 1, p_commit = 1, p_count = 1;

#ifdef LIVE
ltl wprog { <> (wdone == NWRITERS) }
#endif

/* ------------------------------------------------------------ writer */
#define WR_LOCALS							\
	byte w, w2, off, sb, ts, st, sp, prev, id, nseq, r, h, c, n, end, op, ntop, k; \
	short old, dl;							\
	bit ok, got, abs, nset;						\
	byte res

/* rb_enter(): recording on, guard key above the innermost writer's */
inline rb_enter(key)
{
	ok = 1;
#if CONTROL
	atomic {
		in_cs++;		/* rb_enter() L856 preempt_disable_notrace() */
		if
		:: recdis != 0 ->	/* rb_enter() L864 atomic_read_acquire(record_disabled) */
			dropped++;	/* rb_enter() L867 */
			gh_drop++;
			ok = 0;
#ifdef MUTANT_LEAK_PREEMPT
			skip		/* the refusal keeps preemption off */
#else
			in_cs--		/* rb_enter() L881 preempt_enable_notrace() */
#endif
		:: else
		fi
	};
#endif
	if
	:: ok ->
		prev = top;		/* rb_enter() L871 wc->prev = READ_ONCE(cb->top) */
		if
		:: key > prev ->
			top = key	/* rb_enter() L873 */
		:: prev == key ->
			top = key + 1	/* rb_guard_retry() L789 */
		:: else ->
			ok = 0
#if CONTROL
			; in_cs--	/* rb_enter() L881 */
#endif
		fi
	:: else
	fi
}

/* rb_push(): overwrite mode retires sub-buffer r (slot sb) */
inline rb_push()
{
	n = cum[sb] - retired[sb];	/* rb_push() L514 */
	atomic {			/* rb_push() L525 atomic_long_try_cmpxchg(head) */
		if
		:: head == r -> head = r + 1; got = 1
		:: else -> got = 0
		fi
	};
	if
	:: got ->
#ifndef MUTANT_NO_OVERRUN
		overrun = overrun + n	/* rb_push() L526 local_add(n, overrun) */
#else
		skip
#endif
	:: else ->
		h = head		/* rb_push() L528 atomic_long_read_acquire(head) */
	fi
}

/* rb_mark(): slot sb takes sub-buffer nseq */
inline rb_mark()
{
	old = sseq[sb];			/* rb_mark() L490 */
	if
	:: old == nseq			/* rb_mark() L497 marked by a nested writer */
	:: old > nseq -> res = R_AGAIN	/* rb_mark() L499 */
	:: old < nseq ->
		c = cum[sb];		/* rb_mark() L501 */
		atomic {		/* rb_mark() L502 local_try_cmpxchg(sb->seq) */
			if
			:: sseq[sb] == old -> sseq[sb] = nseq
			:: else -> res = R_AGAIN
			fi
		};
		if
		:: res == R_OK -> retired[sb] = c	/* rb_mark() L505, smp_wmb L507 */
		:: else
		fi
	fi
}

/* rb_move() with rb_make_room(): start sub-buffer PSEQ(w) + 1 */
inline rb_move()
{
	nseq = PSEQ(w) + 1;		/* rb_move() L566 */
	sb = SLOT(nseq);
	res = R_OK;
	if
	:: nseq >= NR ->		/* rb_make_room() L538 */
		r = nseq - NR;
		c = cpos;		/* rb_make_room() L539 local64_read(commit) */
#ifndef MUTANT_NO_COMMIT_CHECK
		if
		:: !(r < PSEQ(c)) ->	/* rb_make_room() L541 */
			atomic { commit_overrun++; gh_cov++ };	/* L542 */
			res = R_FAIL
		:: else
		fi;
#endif
		if
		:: res == R_OK ->
			h = head;	/* rb_make_room() L546 read_acquire(head) */
			if
			:: !(r < h) ->	/* rb_make_room() L547-L548 */
				if
				:: !OVERWRITE ->
#ifdef MUTANT_NO_DROP_COUNT
					gh_drop++;	/* refused, not counted */
#else
					atomic { dropped++; gh_drop++ };	/* L549 */
#endif
					res = R_FAIL
				:: else ->
					rb_push()	/* rb_make_room() L552 */
				fi
			:: else
			fi
		:: else
		fi
	:: else
	fi;
	if
	:: res == R_OK -> rb_mark()	/* rb_make_room() L555 */
	:: else
	fi;
	if
	:: res == R_OK ->
		atomic {		/* rb_move() L577 local64_try_cmpxchg(write) */
			if
			:: wpos == w -> wpos = MKPOS(nseq, 1)
			:: else -> res = R_AGAIN
			fi
		}
	:: else
	fi;
	if
	:: res == R_OK ->
		send[SLOT(nseq - 1)] = POFF(w)	/* rb_move() L580 prev->end */
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
		w = wpos;		/* rb_reserve_slow() L654 */
#endif
		st = stamp;		/* rb_reserve_slow() L662 */
		sp = stamp_pos;		/* rb_reserve_slow() L663 */
		atomic { clk++; ts = clk };	/* rb_reserve_slow() L664 rb_clock() */
		d_step {		/* rb_reserve_slow() L665-L673 */
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
		:: off + 1 <= CAP ->	/* rb_reserve_slow() L675 */
			atomic {	/* rb_reserve_slow() L676 cmpxchg(write) */
				if
				:: wpos == w -> wpos = w + 1; res = R_OK
				:: else -> res = R_AGAIN
				fi
			};
			sb = SLOT(PSEQ(w));	/* rb_reserve_slow() L678 rb_tail_of() */
			end = w + 1
		:: else ->
			rb_move();	/* rb_reserve_slow() L680 */
			if
			:: res == R_OK ->	/* rb_reserve_slow() L685-L689 */
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
	:: prev == TOP_NONE ->		/* rb_reserve() L713 not nested */
		w = wpos;		/* rb_reserve() L715 */
		atomic { clk++; ts = clk };	/* rb_reserve() L717 rb_clock() */
		dl = ts - stamp;	/* rb_reserve() L719 */
		off = POFF(w);
		if
		:: stamp_pos == w && dl >= 0 && off != 0 && off + 1 <= CAP ->
					/* rb_reserve() L726-L728 */
			atomic {	/* rb_reserve() L729 cmpxchg(write) */
				if
				:: wpos == w -> wpos = w + 1; res = R_OK
				:: else
				fi
			}
		:: else
		fi;
		if
		:: res == R_OK ->	/* rb_reserve() L731 */
			sb = SLOT(PSEQ(w));
			end = w + 1;
			abs = 0
		:: else
		fi
	:: else
	fi;
	if
	:: res != R_OK ->
		rb_reserve_slow(prev != TOP_NONE)	/* rb_reserve() L714/L730 */
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
		:: counted ->		/* rb_claimed() L631 rb_count() for ring_buffer_write() */
			cum[sb]++;
			committed++;
			gh_committed++
		:: else
		fi
	};
	stamp = ts;			/* rb_claimed() L633 */
	stamp_pos = end;		/* rb_claimed() L635 */
#ifndef MUTANT_STAMP_NORECHECK
	if
	:: stamp != ts -> stamp_pos = POS_NONE	/* rb_claimed() L637-L638 */
	:: else
	fi
#endif
}

/* rb_fill_event(): sub-buffer stamp and header in one step */
inline rb_fill()
{
	atomic {			/* rb_fill_event() L593-L602 */
		if
		:: off == 0 -> pts[sb] = ts
		:: else
		fi;
		cid[CI(sb, off)] = id;
		if
		:: abs -> ckind[CI(sb, off)] = K_ABS; ctv[CI(sb, off)] = ts
		:: else -> ckind[CI(sb, off)] = K_DELTA; ctv[CI(sb, off)] = dl
		fi
	}
}

/* rb_leave() with rb_end_commit(): give the guard back, publish */
inline rb_leave()
{
	if
	:: prev != TOP_NONE ->
#ifdef MUTANT_WRONG_KEY
		top = TOP_NONE
#else
		top = prev		/* rb_end_commit() L751 */
#endif
	:: else ->
		do
		:: w2 = wpos;		/* rb_end_commit() L755 */
			d_step {	/* rb_end_commit() L762 after smp_wmb() L761 */
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
			top = TOP_NONE;	/* rb_end_commit() L764 */
			if
#ifdef MUTANT_NO_RECHECK
			:: true -> break
#else
			:: wpos == w2 -> break	/* rb_end_commit() L766 */
			:: else -> top = TOP_BUSY	/* rb_end_commit() L769 */
#endif
			fi
		od
	fi
#if CONTROL
	; in_cs--			/* rb_leave() L893 preempt_enable_notrace() */
#endif
}

/*
 * One event: ring_buffer_lock_reserve() + payload + unlock_commit() or
 * discard_commit(), or ring_buffer_write() (op OP_WRITE).
 */
inline wr_event(key)
{
	rb_enter(key);			/* ring_buffer_lock_reserve() L919 / ring_buffer_write() L1024 */
	if
	:: ok ->
		rb_reserve();		/* ring_buffer_lock_reserve() L925 / ring_buffer_write() L1028 */
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
			atomic {	/* the caller's payload / ring_buffer_write() L1030 memcpy */
				cpay[CI(sb, off)] = id;
				if
				:: op == OP_WRITE -> evst[id] = ST_COMMITTED
				:: else
				fi
			};
			if
			:: op == OP_COMMIT ->
				atomic {	/* ring_buffer_unlock_commit() L969 rb_count() */
					cum[sb]++;
					committed++;
					gh_committed++;
					evst[id] = ST_COMMITTED
				}
			:: op == OP_DISCARD ->
				atomic {	/* ring_buffer_discard_commit() L994 cmpxchg(write) */
					if
					:: wpos == end -> wpos = w; got = 1
					:: else -> got = 0
					fi;
					evst[id] = ST_DISCARDED
				};
				if
				:: got -> stamp_pos = POS_NONE	/* discard_commit() L996 */
				:: else -> ckind[CI(sb, off)] = K_PAD	/* discard_commit() L998-L1001 */
				fi
			:: op == OP_WRITE
			fi
		:: else
		fi;
		rb_leave()		/* lock_reserve() L927 / unlock_commit() L970 / discard_commit() L1003 / write() L1033 */
	:: else
	fi
}

/* ring_buffer_nest_start(): let this context in once more */
inline nest_start(key)
{
	if
	:: top >= key ->		/* ring_buffer_nest_start() L1065 */
		ntop = top;		/* ring_buffer_nest_start() L1066 */
		top = key - 1;		/* ring_buffer_nest_start() L1068 */
		nset = 1
	:: else -> nset = 0
	fi
}

/* ring_buffer_nest_end() */
inline nest_end(key)
{
	if
	:: nset && top == key - 1 -> top = ntop	/* ring_buffer_nest_end() L1094-L1096 */
	:: else
	fi
}

proctype Task() provided (ctx == 0)
{
	WR_LOCALS;
	byte e = 0;
#if T_NEST
	byte a_w, a_sb, a_off, a_prev, a_id, a_end;
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
					cpay[CI(sb, off)] = id
				:: else
				fi;
				if
				:: res != R_OK -> rb_leave(); a_ok = 0
				:: else
				fi
			:: else
			fi;
			a_w = w; a_sb = sb; a_off = off; a_prev = prev; a_id = id; a_end = end;
			nest_start(KEY_TASK);
			wr_event(KEY_TASK);
			nest_end(KEY_TASK);
			if
			:: a_ok ->
				w = a_w; sb = a_sb; off = a_off; prev = a_prev; id = a_id; end = a_end;
				atomic {	/* ring_buffer_unlock_commit() L969 rb_count() */
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

/* ------------------------------------------------------------ reader */
#define RD_LOCALS							\
	byte c, cseq, avail, sbr, i, h, seq, total, ets, evid, tries, k, ops = 0; \
	bit done, skip_fill, fres, found, took;				\
	byte rseq, roff, rlen, rts, copyts;				\
	bit rdone, rown;						\
	byte rd_cnt, rd_total, nread, overrun_adj, gh_read, last_ts, gen; \
	byte copy_id[CAP], copy_kind[CAP], copy_tv[CAP], copy_pay[CAP]

#if CONTROL
/* raw_spin_lock_irqsave(reader_lock), and what a reset did meanwhile */
#define RB_LOCK()							\
	atomic {							\
		rlock == 0 -> rlock = 1;				\
		if							\
		:: gen != rst_gen ->					\
			gen = rst_gen;					\
			rseq = rst_base; roff = 0; rlen = 0; rdone = 0;	\
			rown = 0; rts = 0; rd_cnt = 0; nread = 0;	\
			overrun_adj = 0; gh_read = 0			\
		:: else							\
		fi							\
	}
#define RB_UNLOCK()	rlock = 0
#else
#define RB_LOCK()	skip
#define RB_UNLOCK()	skip
#endif

/* rb_rd_move(): point the reader at sub-buffer s */
inline rb_rd_move(s)
{
	d_step {			/* rb_rd_move() L1248-L1250, rb_cur_start() */
		rd_cnt = 0;
		rseq = s;
		roff = 0;
		rlen = 0;
		rdone = 0;
		rown = 0;
		rts = 0
	}
}

/* rb_rd_sync(): catch up with a writer that pushed our sub-buffer */
inline rb_rd_sync()
{
	h = head;			/* rb_rd_sync() L1256 */
	if
	:: !rown && h != rseq ->	/* rb_rd_sync() L1258 */
		overrun_adj = overrun_adj + rd_cnt;	/* rb_rd_sync() L1261 */
		rb_rd_move(h)		/* rb_rd_sync() L1262 */
	:: else
	fi
}

/* rb_cur_fill(): copy what is readable, then the seq check */
inline rb_cur_fill()
{
	sbr = SLOT(rseq);
	c = cpos;			/* rb_cur_fill() L1165, smp_rmb() L1171 */
	cseq = PSEQ(c);
	fres = 0;
	skip_fill = 0;
	if
	:: cseq == rseq ->		/* rb_cur_fill() L1172 */
		avail = POFF(c);
#ifdef MUTANT_READ_OWNED
		done = 1		/* as if the writer had left it */
#else
		done = 0
#endif
	:: rseq < cseq ->
		avail = send[sbr];	/* rb_cur_fill() L1176 */
		done = 1
	:: rseq > cseq ->
		skip_fill = 1		/* rb_cur_fill() L1179 */
	fi;
	if
	:: !skip_fill ->
		if
		:: avail > rlen ->	/* rb_cur_fill() L1183, rb_copy_out() */
			if
			:: rlen == 0 -> copyts = pts[sbr]	/* rb_copy_out() L1150 */
			:: else
			fi;
			i = rlen;
			do		/* rb_copy_out() L1153 memcpy, a cell at a time */
			:: i < avail ->
				atomic {
					copy_id[i] = cid[CI(sbr, i)];
					copy_kind[i] = ckind[CI(sbr, i)];
					copy_tv[i] = ctv[CI(sbr, i)];
					copy_pay[i] = cpay[CI(sbr, i)]
				};
				i++
			:: else -> break
			od
		:: else
		fi;
		if			/* rb_cur_fill() L1187 after smp_rmb() L1186 */
#ifndef MUTANT_NO_SEQCHECK
		:: sseq[sbr] != rseq -> fres = 1
#endif
		:: else ->
			d_step {	/* rb_cur_fill() L1189-L1192 */
				if
				:: rlen == 0 && roff == 0 && avail > 0 -> rts = copyts
				:: else
				fi;
				if
				:: avail > rlen -> rlen = avail
				:: else
				fi;
				rdone = done
			}
		fi
	:: else
	fi
}

/* rb_cur_event(): next data event of the copy, its stamp in ets */
inline rb_cur_event()
{
	d_step {			/* rb_cur_event() L1203-L1226 */
		found = 0;
		do
		:: roff < rlen ->
			assert(p_torn && copy_kind[roff] != K_NONE);	/* RB_WARN L1207 */
			if
			:: copy_kind[roff] == K_NONE -> roff = rlen	/* RB_WARN path L1208 */
			:: copy_kind[roff] == K_PAD -> roff++
			:: copy_kind[roff] == K_ABS -> ets = copy_tv[roff]; found = 1; break
			:: copy_kind[roff] == K_DELTA -> ets = rts + copy_tv[roff]; found = 1; break
			fi
		:: else -> break
		od;
		skip
	}
}

/* rb_rd_take(): retire the finished sub-buffer with the head cmpxchg */
inline rb_rd_take()
{
	sbr = SLOT(rseq);
	total = cum[sbr] - retired[sbr];	/* rb_rd_take() L1275 */
	seq = rseq;
#ifdef MUTANT_NO_HEAD_CMPXCHG
	h = head;			/* a plain check and store */
	if
	:: h == seq -> head = seq + 1; took = 1
	:: else -> took = 0
	fi;
#else
	atomic {			/* rb_rd_take() L1284 atomic_long_try_cmpxchg(head) */
		if
		:: head == seq -> head = seq + 1; took = 1
		:: else -> took = 0
		fi
	};
#endif
	if
	:: took ->
		rown = 1;		/* rb_rd_take() L1285 */
		rd_total = total	/* rb_rd_take() L1286 */
	:: else ->
		rb_rd_sync()		/* rb_rd_take() L1288 */
	fi
}

/* rb_rd_look(take = true): next event for the consuming reader */
inline rb_rd_look()
{
	tries = 0;
	found = 0;
	do
	:: tries < RD_TRIES ->
		tries++;
		rb_rd_sync();		/* rb_rd_look() L1305 */
		rb_cur_event();		/* rb_rd_look() L1306 */
		if
		:: found -> break
		:: else
		fi;
		if
		:: rown ->
			rb_rd_move(rseq + 1)	/* rb_rd_look() L1310 */
		:: else ->
			rb_cur_fill();	/* rb_rd_look() L1313 */
			if
			:: fres		/* rb_rd_look() L1315 smp_rmb(), again */
			:: else ->
				if
				:: rdone -> rb_rd_take()	/* rb_rd_look() L1318-L1319 */
				:: else ->
					if
					:: roff >= rlen -> break	/* rb_rd_look() L1322 */
					:: else
					fi
				fi
			fi
		fi
	:: else -> break
	od
}

/* the reader accepts the event at roff with stamp ets */
inline rd_accept(counted)
{
	d_step {
		evid = copy_id[roff];
		assert(p_torn && evid != 0 && copy_pay[roff] == evid &&
		       evst[evid] != ST_RESERVED && evpos[evid] == MKPOS(rseq, roff));
		assert(p_once && evst[evid] == ST_COMMITTED);
		assert(p_time && evts[evid] == ets && ets >= last_ts);
		evst[evid] = ST_READ;
		last_ts = ets;
		gh_read++;
		roff++;			/* rb_cur_pass() L1232-L1233 */
		rts = ets;
		if
		:: counted ->		/* rb_rd_consume() L1338-L1339 */
			rd_cnt++;
			nread++
		:: else
		fi
	}
}

/* ring_buffer_consume(): rb_read_one(consume) */
inline rd_consume()
{
	RB_LOCK();			/* rb_read_one() L1364 rb_lock() */
	rb_rd_look();			/* rb_read_one() L1368 rb_rd_peek() */
	if
	:: found -> rd_accept(1)	/* rb_read_one() L1373 rb_rd_consume() */
	:: else
	fi;
	RB_UNLOCK()
}

/* ring_buffer_read_page(): rb_rd_page() with room for a whole page */
inline rd_page()
{
	RB_LOCK();
	tries = 0;
	do				/* rb_rd_page() L1601-L1607 */
	:: tries < RD_TRIES ->
		tries++;
		rb_rd_sync();
		if
		:: rown -> break
		:: else
		fi;
		rb_cur_fill();
		if
		:: !fres -> break
		:: else
		fi
	:: else -> break
	od;
	rb_rd_look();			/* rb_rd_page() L1608 rb_rd_peek() */
	if
	:: found ->
		if
		:: rown && roff == 0 ->	/* rb_rd_page() L1614 rb_rd_give() */
			k = 0;
			do
			:: found -> rd_accept(0); k++; rb_cur_event()
			:: else -> break
			od;
			assert(p_count && k == rd_total);
			nread = nread + rd_total	/* rb_rd_give() L1585 */
		:: else ->		/* rb_rd_span() L1547-L1570 */
			do
			:: found -> rd_accept(1); rb_cur_event()
			:: else -> break
			od
		fi
	:: else
	fi;
	RB_UNLOCK()
}

proctype Reader()
{
	RD_LOCALS;
	do
	:: ops < RD_OPS ->
		ops++;
		if
		:: true -> rd_consume()
		:: RD_PAGE -> rd_page()
		fi
	:: else -> break
	od;
	/* everyone else is done: read what is left, then count */
	(wdone == NWRITERS && ctl_done);
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
			:: evst[i] == ST_COMMITTED -> k++
			:: else
			fi;
			i++
		:: else -> break
		od;
		assert(p_commit && cpos == wpos);
		/* unread committed events are exactly the overrun */
		assert(p_once && k == overrun - overrun_adj);
		assert(p_count && committed == gh_committed && nread == gh_read &&
		       committed == nread + overrun - overrun_adj &&
		       dropped == gh_drop && commit_overrun == gh_cov)
	}
}

#if ITER_OPS
/* the iterator shows the event at roff with stamp ets */
inline it_show()
{
	d_step {
		evid = copy_id[roff];
		assert(p_torn && evid != 0 && copy_pay[roff] == evid &&
		       evst[evid] != ST_RESERVED && evst[evid] != ST_DISCARDED &&
		       evpos[evid] == MKPOS(rseq, roff));
		assert(p_time && evts[evid] == ets && ets >= last_ts);
		last_ts = ets;
		roff++;			/* ring_buffer_iter_advance(): rb_cur_pass() */
		rts = ets
	}
}

/*
 * ring_buffer_iter_peek() + ring_buffer_iter_advance(), ITER_OPS times,
 * on an iterator opened before anything was read (at sub-buffer 0).
 */
proctype Iter()
{
	RD_LOCALS;
	do
	:: ops < ITER_OPS ->
		ops++;
		tries = 0;
		found = 0;
		do
		:: tries < RD_TRIES ->
			tries++;
			rb_cur_event();	/* ring_buffer_iter_peek() L1830 */
			if
			:: found -> break
			:: else
			fi;
			if
			:: rdone ->
				rb_rd_move(rseq + 1)	/* ring_buffer_iter_peek() L1833-L1835 */
			:: else ->
				h = head;	/* ring_buffer_iter_peek() L1839 */
				if
				:: rseq < h -> rb_rd_move(h)	/* L1841-L1842 dropped */
				:: else
				fi;
				rb_cur_fill();	/* rb_iter_fill() L1739 under reader_lock */
				if
				:: fres		/* ring_buffer_iter_peek() L1847-L1850 */
				:: else ->
					if
					:: roff >= rlen && !rdone -> break	/* L1852 */
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
	recdis = recdis + HELD;		/* rb_hold_writers() L2193 atomic_add() */
	in_cs == 0;			/* rb_hold_writers() L2194 synchronize_rcu() */
#endif
	atomic { rlock == 0 -> rlock = 1 };	/* rb_reset_one() L2376 */
	d_step {			/* rb_cpu_clear() L1975-L2001 */
		base = PSEQ(wpos) + 1;	/* rb_reset_one() L2377 */
		j = 0;
		do
		:: j < NR ->
			sseq[SLOT(base + j)] = base + j - NR;	/* rb_slot_clear() */
			cum[SLOT(base + j)] = 0;
			retired[SLOT(base + j)] = 0;
			send[SLOT(base + j)] = 0;
			j++
		:: else -> break
		od;
		sseq[SLOT(base)] = base;
		pts[SLOT(base)] = 0;
		wpos = MKPOS(base, 0);
		cpos = MKPOS(base, 0);
		top = TOP_NONE;
		stamp = 0;
		stamp_pos = POS_NONE;
		committed = 0;
		overrun = 0;
		commit_overrun = 0;
		dropped = 0;
		head = base;
		rst_base = base;	/* rb_cur_start(&cb->rd, base) and the read counters */
		rst_gen++;
		/* ghost: what was not read is gone with the counters */
		j = 1;
		do
		:: j <= nid ->
			if
			:: evst[j] == ST_COMMITTED -> evst[j] = ST_CLEARED
			:: else
			fi;
			j++
		:: else -> break
		od;
		gh_committed = 0;
		gh_drop = 0;
		gh_cov = 0
	};
	rlock = 0;
#ifndef MUTANT_NO_HOLD
	recdis = recdis - HELD;		/* rb_release_writers() L2204 */
#endif
	ctl_done = 1
}
#endif

init {
	byte j = 0;
	d_step {			/* rb_cpu_clear(cb, 0) from rb_cpu_alloc() L2040 */
		do
		:: j < NR -> sseq[j] = j - NR; j++
		:: else -> break
		od;
		sseq[0] = 0
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
