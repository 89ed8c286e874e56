#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh model|mutants: run Spin on ring_buffer.pml and report KTAP.
#
#   model    every configuration, exhaustive safety search (assertions and
#            invalid end states), and the progress claim (ltl wprog, weak
#            fairness) on the configurations in LIVE_CFGS; then one KTAP
#            line per property over all configurations.
#   mutants  each MUTANT_x of the model, one at a time, in the configuration
#            that exposes it: "ok" when Spin finds a counterexample that
#            violates the property the mutant names (pan's first error is
#            that property, and its trail replays to it), "not ok" when the
#            mutant survives or breaks some other property.
#
# Spin and gcc come from Debian: vm/install-deps.sh installs them when
# missing (as root; otherwise it prints the command to run).  Everything generated goes to
# MODEL_OUT (default build/model at the top of the repository).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
OUT=${MODEL_OUT:-$REPO/build/model}
PML=$HERE/ring_buffer.pml
mode=${1:-model}

# Safety configurations, then the ones that also get the progress check
# (CFG or CFG:-DNAME=VALUE; PC with one racing read instead of two).
CFGS="NEST LAP TAKE MAP PC DROP GUARD RESET ITER WRAP TAIL NMI2"
LIVE_CFGS="GUARD WRAP PC:-DRD_OPS=1"
# Mutants: name, configuration that exposes it, the property it must
# violate (a PROPS tag), kind, what it breaks.  Kind "int": an interleaving
# bug, which must also pass the same configuration with -DSEQUENTIAL (no
# step of another actor inside an operation, interrupts only between the
# task's events: what a sequential test can reach); "seq": caught there too.
MUTANTS="
NO_SEQCHECK ITER p_torn int iterator_skips_the_tag_re-check_after_its_copy_in_rb_cur_fill
COMMIT_EARLY WRAP p_lost seq commit_published_before_the_event_is_written
NO_HEAD_CMPXCHG LAP p_lost int rb_take_retires_head_with_a_plain_check_and_store
OVERRUN_BEFORE_PUSH LAP p_lost int rb_push_adds_to_overrun_before_its_head_cmpxchg,_which_a_reader's_take_may_win
WRONG_KEY NEST p_commit int nested_writer_restores_RB_TOP_NONE_not_its_prev_key
OWN_LEN_PAGE_FIRST LAP p_lost int rb_own_len_reads_the_page's_commit_word_before_cb->commit
SYNC_IGNORES_PUSHING LAP p_lost int rb_rd_sync_moves_to_head_while_a_push_has_not_counted_overrun_yet
PAGE_AFTER_TAG TAKE p_page int rb_mark_installs_the_spare_page_after_the_new_tag
TAG_BEFORE_NEXT TAKE p_page seq rb_take_tags_the_slot_taken_before_it_leaves_its_spare_in_next
CUM_AFTER_TAG TAKE p_count int rb_mark_reads_the_lap's_count_after_the_tag
TOTAL_CUM_AFTER_TAG TAKE p_count int rb_own_total_reads_the_slot's_count_after_its_tag_check
PAGE_COMMIT_AFTER_COMMIT LAP p_lost int rb_end_commit_writes_the_passed_pages'_commit_words_after_commit
ITER_TAKEN ITER p_torn seq iterator_reads_a_taken_slot_through_the_ring_after_the_reader_left_it
NO_COMMIT_CHECK WRAP p_lost int rb_make_room_reuses_a_slot_not_fully_committed
NO_RECHECK NEST p_commit int rb_end_commit_publishes_once_without_re-reading_write
STAMP_NORECHECK NEST p_time int rb_claimed_skips_the_stamp_re-read
NO_HOLD RESET p_lost int reset_without_holding_writers_off
STALE_RETRY GUARD progress int claim_retried_with_a_stale_position_(livelock)
COMMIT_STALE_RETRY GUARD progress int rb_end_commit_retries_with_the_write_position_it_read_before_the_loop_(livelock)
DROP_COUNT_RMW DROP p_count int a_refused_event_counted_with_a_plain_read-modify-write_of_dropped;_an_irq's_count_in_between_is_lost
LEAK_PREEMPT RESET deadlock int a_writer_refused_by_RB_HELD_leaves_preemption_off
STALE_TAIL TAIL p_slot int rb_move_stores_tail_once_after_its_cmpxchg;_an_irq's_move_in_between_leaves_it_stale_for_the_fast_path
RETAKE_NEXT TAKE p_page int rb_take_retried_while_a_push_is_in_flight_stores_the_page_it_took_in_sb->next_(ring_buffer.c_as_of_bd0a9b1)
LATE_OVERRUN LAP p_lost int rb_push_counts_overrun_after_the_head_cmpxchg_with_no_pushing_guard;_a_reader_in_between_reports_the_loss_a_sub-buffer_late
"
# Properties: tag in the model, description.
PROPS="
p_once every_committed_event_is_read_exactly_once_or_counted_as_overrun
p_torn a_reader_never_accepts_a_torn_or_overwritten_event
p_time stamps_read_back_are_the_writers'_and_never_go_backwards
p_commit commit_never_passes_an_open_reservation
p_count counters_exact_(unread+read+overrun=committed,_dropped,_commit_overrun)
p_slot a_writer_fills_the_page_of_the_slot_that_holds_its_sub-buffer_(tail_never_stale)
p_page every_page_is_in_exactly_one_place_(a_slot,_a_taken_slot's_next,_the_reader,_read_page's_caller)
p_lost a_loss_is_reported_with_the_first_event_after_the_gap,_by_its_exact_size
deadlock no_deadlock_(no_invalid_end_state)
progress every_writer_finishes_or_refuses_(ltl_wprog,_weak_fairness)
"

msg() {
	printf '==> %s\n' "$*" >&2
}


# pan.c is the same from run to run while the model is: through ccache
# (installed by the pipeline) a second run skips its compiles, most of the
# time of the small searches.
CC_PAN=(gcc)
command -v ccache > /dev/null && CC_PAN=(ccache gcc)
# States are stored uncompressed in a 2^26-slot hash table: the largest
# configuration (TAKE, 23 million states of 252 bytes) takes 6 GB and 52 s
# where -DCOLLAPSE with 2^24 slots took 1 GB and 198 s.  Past PAN_MEMLIM MB
# pan stops and the configuration is reported incomplete, never passed.
PAN_W=${PAN_W:-26}
PAN_DEFS="-DMEMLIM=${PAN_MEMLIM:-12288}"

# verify DIR LIVE DEFS...: generate, compile and run pan in DIR; the
# result ("pass", "fail TAG" or "incomplete WHY") goes to DIR/result.
verify() {
	local dir=$1 live=$2 t0 res tag opt=${OPT:--O2}
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s.%N)
	(
		cd "$dir"
		cp "$PML" model.pml
		spin "$@" -a model.pml > spin.log 2>&1
		if [ "$live" = 1 ]; then
			"${CC_PAN[@]}" $opt -w -DNOBOUNDCHECK $PAN_DEFS -o pan pan.c
			./pan -a -f -m300000 -w$PAN_W -N wprog > pan.log 2>&1 || true
		else
			"${CC_PAN[@]}" $opt -w -DSAFETY -DNOBOUNDCHECK $PAN_DEFS -o pan pan.c
			./pan -m300000 -w$PAN_W > pan.log 2>&1 || true
		fi
	) || { echo "incomplete spin/gcc failed" > "$dir/result"; return; }
	if grep -q 'errors: 0' "$dir/pan.log"; then
		if grep -q 'Search not completed\|max search depth too small' "$dir/pan.log"; then
			res="incomplete search not completed"
		else
			res=pass
		fi
	elif grep -q 'errors: [1-9]' "$dir/pan.log"; then
		tag=$(grep -o 'assertion violated ((*p_[a-z]*' "$dir/pan.log" | head -n1 |
			grep -o 'p_[a-z]*' || true)
		if [ -z "$tag" ]; then
			if grep -q '^pan:[0-9]*: invalid end state' "$dir/pan.log"; then
				tag=deadlock
			elif grep -q '^pan:[0-9]*: acceptance cycle' "$dir/pan.log"; then
				tag=progress
			else
				tag=unknown
			fi
		fi
		res="fail $tag"
	else
		res="incomplete pan did not finish"
	fi
	echo "$res" > "$dir/result"
	printf '%s, %s states, %s s\n' "$res" \
		"$(awk '/states, stored/ { print $1; exit }' "$dir/pan.log")" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
		> "$dir/summary"
}

# spin and gcc, installed when missing by the pipeline's one install step
# (its output on stderr: stdout is KTAP).
bash "$REPO/tools/testing/ring_buffer/vm/install-deps.sh" model >&2
mkdir -p "$OUT"
T0=$(date +%s)

if [ "$mode" = model ]; then
	for c in $CFGS; do
		verify "$OUT/safety-$c" 0 -DCFG_"$c"
		msg "$c (safety): $(cat "$OUT/safety-$c/summary")"
	done
	for lc in $LIVE_CFGS; do
		c=${lc%%:*}
		defs=()
		[ "$c" = "$lc" ] || defs=("${lc#*:}")
		verify "$OUT/live-$c" 1 -DCFG_"$c" -DLIVE "${defs[@]}"
		msg "$c${defs[*]:+ ${defs[*]}} (progress): $(cat "$OUT/live-$c/summary")"
	done
	echo "KTAP version 1"
	echo "1..$(echo "$PROPS" | grep -c .)"
	n=0
	nfail=0
	while read -r tag desc; do
		[ -n "$tag" ] || continue
		n=$((n + 1))
		bad=""
		if [ "$tag" = progress ]; then
			dirs=$(for c in $LIVE_CFGS; do echo "$OUT/live-${c%%:*}"; done)
		else
			dirs=$(for c in $CFGS; do echo "$OUT/safety-$c"; done)
		fi
		for d in $dirs; do
			r=$(cat "$d/result")
			c=${d##*-}
			case "$r" in
			pass) ;;
			"fail $tag") bad="$bad $c:violated(trail:$d)" ;;
			fail*) bad="$bad $c:not-checked-to-the-end(${r#fail })" ;;
			*) bad="$bad $c:${r// /-}" ;;
			esac
		done
		cfgs=$(for d in $dirs; do printf '%s ' "${d##*-}"; done)
		if [ -z "$bad" ]; then
			echo "ok $n model: $tag: ${desc//_/ } # ${cfgs% }"
		else
			echo "not ok $n model: $tag: ${desc//_/ } #$bad"
			nfail=$((nfail + 1))
		fi
	done <<< "$PROPS"
	msg "model: $n properties, $nfail failed, $(($(date +%s) - T0)) s"
	[ "$nfail" -eq 0 ]
elif [ "$mode" = mutants ]; then
	# Counterexamples come early: compile time matters more than speed.
	OPT=${OPT:--O0}
	echo "KTAP version 1"
	echo "1..$(echo "$MUTANTS" | grep -c .)"
	n=0
	nfail=0
	while read -r name cfg prop kind desc; do
		[ -n "$name" ] || continue
		n=$((n + 1))
		d=$OUT/mutant-$name
		live=()
		[ "$prop" = progress ] && live=(-DLIVE)
		verify "$d" ${#live[@]} -DCFG_"$cfg" "${live[@]}" -DMUTANT_"$name"
		r=$(cat "$d/result")
		# pan's error must be the named property, and the trail must
		# replay to it.
		replay=no
		if [ "$r" = "fail $prop" ] && [ -f "$d/model.pml.trail" ]; then
			( cd "$d" && timeout 120 spin -DCFG_"$cfg" -DMUTANT_"$name" \
				"${live[@]}" -t -p model.pml > trail.txt 2>&1 ) || true
			case "$prop" in
			progress)
				grep -q '<<<<<START OF CYCLE>>>>>' "$d/trail.txt" && replay=yes ;;
			deadlock)
				# Processes stuck outside an end state, no assertion.
				! grep -q 'assertion violated' "$d/trail.txt" &&
					grep -q 'trail ends after' "$d/trail.txt" &&
					grep -Eq '^ *[0-9]+:[[:space:]]+proc .*\(state [0-9]+\)$' "$d/trail.txt" &&
					replay=yes ;;
			*)
				grep -q "text of failed assertion: assert((*$prop[^a-z_]" "$d/trail.txt" &&
					replay=yes ;;
			esac
		fi
		# An interleaving bug passes every sequential path: the same
		# search with -DSEQUENTIAL must end with no error.
		seqd=$OUT/mutant-$name-sequential
		seq="caught sequentially too"
		if [ "$kind" = int ]; then
			verify "$seqd" ${#live[@]} -DCFG_"$cfg" "${live[@]}" -DMUTANT_"$name" -DSEQUENTIAL
			seq=$(cat "$seqd/result")
			[ "$seq" = pass ] && seq="passes every sequential path ($(awk '/states, stored/ { print $1; exit }' "$seqd/pan.log") states)"
		fi
		if [ $replay = yes ] && [ "$kind" = int ] && [ "${seq%% *}" != passes ]; then
			echo "not ok $n mutant $name (${desc//_/ }): counterexample in $cfg, $prop violated, but with -DSEQUENTIAL: $seq # $seqd"
			nfail=$((nfail + 1))
		elif [ $replay = yes ]; then
			echo "ok $n mutant $name (${desc//_/ }): counterexample in $cfg, $prop violated; $seq # trail $d/trail.txt"
		elif [ "${r%% *}" = fail ]; then
			echo "not ok $n mutant $name (${desc//_/ }): in $cfg ${r#fail } violated, not $prop # $d"
			nfail=$((nfail + 1))
		else
			echo "not ok $n mutant $name (${desc//_/ }): survived in $cfg # $r"
			nfail=$((nfail + 1))
		fi
	done <<< "$MUTANTS"
	msg "mutants: $n, $nfail survived, $(($(date +%s) - T0)) s"
	[ "$nfail" -eq 0 ]
else
	msg "usage: $0 model|mutants"
	exit 2
fi
