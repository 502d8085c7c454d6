package dev.verbatim.rpc.internal;

/**
 * How the threads of an endpoint wait: spin first, then park (docs/rpc.md §4). Every timing constant of
 * the endpoint is here, so the whole policy reads in one place.
 *
 * <ul>
 *   <li>A waiting caller polls (or looks) {@link #SPIN_POLLS} times without reading the clock: most
 *       replies come within them, and a clock read costs a tenth of a call.</li>
 *   <li>A leading caller then spins {@link #leadSpinNanos()}: up to {@link #LEAD_SPIN_MAX_NANOS} while the
 *       peer answers quickly, halved each time a reply outlasts the spin down to {@link #LEAD_SPIN_MIN_NANOS}
 *       (a peer that parked makes every call pay its wake-up; a peer that works long per call should not cost
 *       its callers a spinning core). Then it lets the transport park it, at most {@link #LEAD_WAIT_NANOS}.</li>
 *   <li>A caller that is not leading spins {@link #FOLLOW_SPIN_NANOS}, then parks at most
 *       {@link #parkSlice} at a time (longer the more callers wait), looking again for the read lock each time.</li>
 *   <li>The dispatcher glances at the connection every {@link #PEEK_NANOS} while callers lead, and
 *       until {@link #STEP_ASIDE_NANOS} after one last stopped waiting; otherwise it spins
 *       {@link #DISPATCH_SPIN_NANOS} (on tcp yielding between empty polls, except within
 *       {@link #DISPATCH_BUSY_NANOS} of its last message) and sleeps in the transport ({@link #BUSY_WAIT_NANOS} while
 *       asynchronous calls are pending, {@link #IDLE_WAIT_NANOS} when idle, {@link #OUTBOX_RETRY_NANOS}
 *       while the outbox waits for room). On a transport that watches readiness (tcp) an idle run ends
 *       after {@link #RUN_IDLE_NANOS}, or right after its spin once {@link #SPIN_MISSES_TO_END} spins in a
 *       row caught nothing.</li>
 *   <li>A dispatcher running a call that waits for a reply over another connection reads its own
 *       connection too, a poll of each in turn, for up to {@link #LENT_SPIN_NANOS}; then a new thread
 *       becomes the dispatcher ({@link Dispatcher#handOff}).</li>
 *   <li>Any thread running an incoming call that waits for a reply over another connection (of a node with
 *       node-wide chains) reads the connection its call came by too, as a guest, in the same turns, until
 *       nothing came there for {@link #GUEST_SPIN_NANOS}.</li>
 *   <li>With every virtual call thread busy, the dispatcher waits for one {@link #VIRTUAL_SLOT_WAIT_MILLIS} at a
 *       time; closing waits {@link #CLOSE_JOIN_MILLIS} for the dispatcher's run to end.</li>
 * </ul>
 *
 * <p>One instance per endpoint holds the adaptive part (the leader's spin), a hint that leading threads
 * read and write racily on purpose.
 */
final class WaitPolicy {
    /** Polls (or looks) a waiting caller makes before it reads the clock. */
    static final int SPIN_POLLS = 128;
    /**
     * How many waiting callers of one connection may spin at once: the CPUs. A follower that finds more callers
     * waiting than that parks at once (its reply wakes it): spinning followers took the CPUs from the leader that
     * reads their replies and from the peer (bench rpc, tcp/throughput-16 and -256: spinning and clock reads were
     * some 40% of the calling process's CPU, ~50 us per call).
     */
    static final int SPINNERS = Runtime.getRuntime().availableProcessors();

    /** Whether {@code waiting} callers are more than may spin at once ({@link #SPINNERS}). */
    static boolean crowded(int waiting) {
        return waiting > SPINNERS;
    }

    /** How long a caller that is not leading spins before it parks. */
    static final long FOLLOW_SPIN_NANOS = 20_000;
    /**
     * The shortest and longest park of a caller or helper that is not leading, after which it looks for the
     * read lock again ({@link #parkSlice}). A safety net: a parked caller is woken by its own reply, and by a
     * leader that stops leading while others wait ({@link CallTable#wakeAnotherCaller}). Fixed 200 µs slices
     * made many waiting callers wake each other for nothing: 255 callers were up to 1.3 million wake-ups a
     * second on 2 CPUs, which starved the leader reading for all of them (bench rpc, tcp/throughput-256:
     * 3,031 calls/s; with slices that grow with the callers, 34,610-41,534).
     */
    static final long PARK_SLICE_NANOS = 200_000;
    static final long PARK_SLICE_MAX_NANOS = 10_000_000;
    /** How much a caller's park slice grows per caller waiting on the same connection. */
    static final long PARK_SLICE_PER_CALLER_NANOS = 25_000;

    /** The park slice with {@code waiting} callers: 25 µs each, within 200 µs and 10 ms (a few wake-ups per slice). */
    static long parkSlice(int waiting) {
        return Math.min(PARK_SLICE_MAX_NANOS, Math.max(PARK_SLICE_NANOS, waiting * PARK_SLICE_PER_CALLER_NANOS));
    }
    /** The longest a leader spins after its first polls, while the peer answers within it. */
    static final long LEAD_SPIN_MAX_NANOS = 1_000_000;
    /** The shortest a leader spins, after replies outlasted its spin. */
    static final long LEAD_SPIN_MIN_NANOS = 20_000;
    /** How long a leader sleeps in the transport before it looks whether it should step down. */
    static final long LEAD_WAIT_NANOS = 5_000_000;
    /** How often the dispatcher glances at the connection while callers lead; how often it expires asynchronous calls. */
    static final long PEEK_NANOS = 100_000;
    /**
     * The dispatcher's spin reads the clock at the first of every this many empty polls (and after each message or
     * yield): a clock read (~23 ns here) was a third of an empty poll's turn, which a message arriving during it waits
     * out. Its spin ends up to this many polls late (well under a microsecond). A power of two (the count is masked).
     */
    static final int DISPATCH_CLOCK_POLLS = 8;
    /** How long after a caller last stopped waiting the dispatcher still only glances (callers may come back). */
    static final long STEP_ASIDE_NANOS = 2_000_000;
    /** How long the dispatcher spins with the allocation-free poll before it sleeps in the transport. */
    static final long DISPATCH_SPIN_NANOS = 200_000;
    /**
     * How long after its last message a spinning dispatcher on a connection whose spinners yield (tcp,
     * {@link #pause}) keeps its CPU instead of yielding it between empty polls: a connection called back to back
     * finds its next call within this, and a yield then handed the CPU to whatever else was runnable (bench rpc,
     * scale/idle-1000: with a thousand connections each called once a second, the measuring connection's p50 went
     * from 10.4-11.9 us unloaded to 16.1-21.8 us loaded; with this, 11.5-14.0 us, 1.18-1.26x). Past it, the
     * dispatcher yields as before, which many callers need (tcp/throughput-1/16/256 without any yield:
     * 14,106 / 65,716 / 315,874 calls/s against 27,758 / 167,554 / 431,296 with). None on one CPU: there the peer's
     * threads can only answer while this one yields ({@code OneCpuSpinTest}: 10.7 reads per call with it).
     */
    static final long DISPATCH_BUSY_NANOS = SPINNERS > 1 ? 30_000 : 0;
    /**
     * How many empty polls a leading caller on a connection whose spinners yield (tcp) makes before it starts
     * yielding between them: its reply, a round trip away, usually comes within them, and a yield then handed the
     * CPU to whatever else was runnable, even a process at nice 19 (bench rpc, scale/idle-1000, quiet host, three
     * windows a side: 1.02x, 1.02x, 1.10x with it against 1.08-1.22x and one 2.77x run without; tcp/throughput-1/16/256
     * in adjacent runs 26,129 / 136,798 / 611,196 calls/s with it, 24,908 / 132,127 / 525,850 without). None on one
     * CPU, as for the dispatcher ({@link #DISPATCH_BUSY_NANOS}).
     */
    static final int LEAD_BUSY_POLLS = SPINNERS > 1 ? 32 : 0;
    /** How long the dispatcher sleeps in the transport while asynchronous calls or answers are pending. */
    static final long BUSY_WAIT_NANOS = 100_000_000;
    /**
     * How long a dispatcher run waits on an idle connection before it ends and lets the transport start
     * a new one when a message comes ({@link Dispatcher}; tcp). Connections called now and then hold a
     * run for this long after each call, so a node's pool threads are about calls per second times this
     * (1,000 connections calling once a second: ~20). A restart costs about what waking the sleeping run
     * would (either way the readiness thread unparks a thread), so it need not be long; a connection
     * called every few milliseconds keeps its run.
     */
    static final long RUN_IDLE_NANOS = 20_000_000;
    /**
     * After this many spins in a row that caught no message, a dispatcher run on a watched connection ends
     * right after its spin instead of waiting {@link #RUN_IDLE_NANOS} (its transport's spin included: 0.7 ms
     * of CPU per message in all, which at a thousand sporadically called connections is most of a core):
     * the connection's messages come further apart than a spin, so spinning or sleeping on buys nothing. A
     * message a spin catches resets the count (a busy connection keeps its spinning run).
     */
    static final int SPIN_MISSES_TO_END = 2;
    /** How long an idle dispatcher sleeps in the transport when nothing needs it sooner (a transport that cannot watch: shm). */
    static final long IDLE_WAIT_NANOS = 10_000_000_000L;
    /** How often a reader retries sending the outbox (nothing tells it when the peer's window has room). */
    static final long OUTBOX_RETRY_NANOS = 50_000;
    /**
     * A thread that reads two connections in turn (a dispatcher whose call waits for a reply over another
     * connection, or a guest: {@link ReadLeader}) polls each once per turn, and reads the clock (its
     * deadline, how long the other connection has been quiet) once every this many turns: a clock read
     * costs more than an empty poll. Slices of 2 µs on one connection before a look at the other made a
     * walk over two bases wait most of a slice per hop.
     */
    static final int QUIET_POLLS = 32;
    /**
     * How long such a dispatcher reads both before it hands its own connection to a new dispatcher thread
     * and waits only for its reply (at once when an unrelated call waits for the dispatcher).
     */
    static final long LENT_SPIN_NANOS = 200_000;
    /**
     * The longest an answer waits in the send buffer for the answers of the calls that arrived with it
     * ({@link HeldMessages#commit}): a later call of the batch that blocks (on something the first answer's caller must
     * see first) would otherwise keep it there for good; {@link HeldAnswers} writes it after this long.
     */
    static final long ANSWER_HOLD_MAX_NANOS = 1_000_000;
    /**
     * How long a thread waiting in a chain reads the connection its chain came back over (as a guest,
     * {@link ReadLeader}) after anything last arrived there: about a leader's longest spin, renewed by every
     * hop of the chain; then that connection's dispatcher reads it again.
     */
    static final long GUEST_SPIN_NANOS = 1_000_000;
    /** How long the dispatcher waits at a time for a virtual call thread to end (all are busy), looking at close between. */
    static final long VIRTUAL_SLOT_WAIT_MILLIS = 100;
    /** How long {@code close} waits for the dispatcher's run to end. */
    static final long CLOSE_JOIN_MILLIS = 2000;

    /**
     * Nobody reading the endpoint spins ({@link Endpoint#quiet}): the dispatcher sleeps in the transport once it
     * read what came, a leading caller lets the transport park it after one look, and the transport parks at once.
     * An idle shm dispatcher otherwise spins {@link #DISPATCH_SPIN_NANOS} plus the connection's spin after each
     * message (1.2 ms of CPU with the objects suite's settings): on a connection used now and then by work that
     * need not be quick (the object layer's weight requests, every ~24 forwards of a reference then, once in 65,536
     * now), that was a third spinning thread on two CPUs while the forwards ran.
     */
    private volatile boolean quiet;

    void quiet() {
        quiet = true;
    }

    boolean isQuiet() {
        return quiet;
    }

    /** How long a guest reads after anything last arrived ({@link #GUEST_SPIN_NANOS}; tests make it longer). */
    private volatile long guestSpinNanos = GUEST_SPIN_NANOS;

    long guestSpinNanos() {
        return guestSpinNanos;
    }

    /** For tests that count hand-overs: a guest that never stops early (no timing in their assertions). */
    void guestSpinNanos(long nanos) {
        guestSpinNanos = nanos;
    }

    /** The leader's current spin; racy on purpose (a hint). */
    private long leadSpinNanos = LEAD_SPIN_MAX_NANOS;

    /** How long a leader spins after its first {@link #SPIN_POLLS} polls before the transport may park it. */
    long leadSpinNanos() {
        return leadSpinNanos;
    }

    /** A reply outlasted the leader's spin: the peer is slow to answer (busy, or asleep), spin less next time. */
    void spunOut() {
        leadSpinNanos = Math.max(LEAD_SPIN_MIN_NANOS, leadSpinNanos >> 1);
    }

    /** A reply came within the leader's spin: the peer is quick, spin long again. */
    void answeredWithinSpin() {
        if (leadSpinNanos != LEAD_SPIN_MAX_NANOS) {
            leadSpinNanos = LEAD_SPIN_MAX_NANOS;
        }
    }

    /**
     * What a spinning reader or follower does between two looks that found nothing. Over tcp ({@code yield}: each
     * look is a {@code read} system call anyway) {@link Thread#yield()}, not a busy-wait hint: when more threads want
     * a CPU than there are CPUs (many callers, the peer on the same host, other processes), a spinner otherwise keeps
     * its CPU for its whole time slice and takes it from the threads that would do the work it waits for (the peer
     * answering, the caller starting the next call): at 16 callers on 2 CPUs each side made 20-40 empty reads per
     * call. With nothing else runnable the yield returns at once (a short system call, about what the next look's
     * read costs), so one caller's latency does not change. Over shm a look is a load from memory and a yield would
     * cost more than it (a null call's p50 rose from ~270 to ~690 ns): there the busy-wait hint stays (even a yield
     * only once the CPU proved shared, {@link dev.verbatim.transport.spin.SpinPause}, kept two ends that shared one
     * CPU there: its Javadoc says why); the transport's wait after the spin, and a guest's reads, pause that way.
     */
    static void pause(boolean yield) {
        if (yield) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /** How long a reader may sleep in the transport: briefly while the outbox waits for room in the peer's window. */
    static long readerWait(boolean outboxWaits, long otherwise) {
        return outboxWaits ? OUTBOX_RETRY_NANOS : otherwise;
    }
}
