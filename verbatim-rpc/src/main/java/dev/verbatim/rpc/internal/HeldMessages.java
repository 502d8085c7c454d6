package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;

/**
 * The messages an endpoint committed but left in its connection's send buffer ({@link Connection#holdNextCommit}),
 * so that several leave in one write (over tcp one system call, one segment, for many messages instead of one each;
 * docs/rpc.md §5), and why each run of them waits: this class decides, at each commit, whether the message is held,
 * and keeps what says when the run must leave. Three reasons to hold a message, each with its own way out:
 * <ul>
 *   <li>another thread waits for the send lock: the last holder of the lock writes what is held as it unlocks
 *       ({@link #leavesOnUnlock}), so a held message waits at most for the threads queued behind it;</li>
 *   <li>the answer of a call a poll read and ran ({@link #answerMayWait}): the poll runs the calls that have arrived
 *       already, then writes their answers together ({@link Sender#endAnswers});</li>
 *   <li>an asynchronous call while others of its connection are in flight ({@link #callMayWait}): it waits for the
 *       next call its caller starts ({@link #forCaller}, {@link Sender#flushCalls}).</li>
 * </ul>
 * At most {@link #HOLD_MAX_MESSAGES} in a row. The last two may wait for something that never comes (a later call of
 * the batch blocks, the caller starts no more calls): {@link #since} tells the watcher, {@link HeldAnswers}, how long
 * they have waited.
 *
 * <p>The {@link Sender} owns the send lock and the policy of who writes what is held; this class is the state it
 * consults. Guarded by the sender's send lock, except {@link #answerMayWait} (its own thread) and the words read
 * without the lock as hints ({@link #forCaller}, {@link #callsHeld}, {@link #since}), which are volatile. Per
 * commit it costs plain field writes and no allocation; its volatile words are stored only when they change.
 */
final class HeldMessages {
    /**
     * The most messages held for one write ({@link #commit}): a bound on how long the first of them waits for
     * the others (the transport also writes at 64 KiB).
     */
    static final int HOLD_MAX_MESSAGES = 16;

    private final Connection connection;
    /**
     * Whether the last message committed was held in the connection's send buffer ({@link #commit}): the next
     * holder of the send lock sends it with its own, or the last one {@linkplain Sender#unlockSend flushes} it.
     */
    private boolean held;
    /** How many messages are {@link #held}. */
    private int count;
    /**
     * The thread answering a call that a poll read and ran ({@link #answerMayWait}): its answer may wait in the
     * send buffer for the answers of the calls that arrived with it, until the poll ends ({@link Sender#endAnswers});
     * null when none.
     */
    private volatile Thread mayWait;
    /** Whether what is {@link #held} waits for the end of a batch ({@link Sender#endAnswers}), not for a queued thread. */
    private boolean forBatch;
    /**
     * Whether the message being sent is an asynchronous call that may wait for the next ones its caller starts
     * ({@link Sender#sendCall}, {@link PendingCall#mayHold}); cleared by the next commit or unlock.
     */
    private boolean callMayWait;
    /**
     * Whether what is {@link #held} ends with an asynchronous call waiting for its caller's next one ({@link
     * Sender#flushCalls}): the caller, not a queued thread or a batch, decides when it leaves. Written under the
     * send lock, read by the dispatcher without it.
     */
    private volatile boolean forCaller;
    /** How many asynchronous calls were held so far (the dispatcher sees whether their caller goes on: {@link Sender#flushCalls}). */
    private volatile int callsHeld;
    /**
     * {@link System#nanoTime()} when answers or calls began to wait for a batch or a caller in a connection that
     * {@linkplain Connection#holdsCommits really holds} them, or 0: {@link HeldAnswers} writes them if they wait too
     * long. Written under the send lock, read by the watcher.
     */
    private volatile long since;

    HeldMessages(Connection connection) {
        this.connection = connection;
    }

    /**
     * Commits a message (all of its claim, or {@code length} bytes), holding it in the connection's send buffer when
     * another message follows at once: {@code queued} (another thread waits for the send lock), the {@code answer} of
     * a call a poll ran on this thread, or an asynchronous call that {@linkplain #callMayWait may wait}. Returns true
     * when held messages began to wait for a batch or a caller: the sender enters itself with {@link HeldAnswers}.
     */
    boolean commit(Claim c, int length, boolean answer, boolean queued) {
        boolean batch = !queued && answer && mayWait == Thread.currentThread();
        boolean caller = !queued && !answer && callMayWait;
        callMayWait = false;
        boolean hold = count < HOLD_MAX_MESSAGES && (queued || batch || caller);
        if (hold) {
            connection.holdNextCommit();
        }
        if (length < 0) {
            c.commit();
        } else {
            c.commit(length);
        }
        held = hold; // a commit not held wrote what was held before it
        forBatch = hold && batch;
        if (forCaller != (hold && caller)) { // (no volatile store on the hot path unless it changes)
            forCaller = hold && caller;
        }
        if (hold && caller) {
            callsHeld++; // (under the send lock)
        }
        count = hold ? count + 1 : 0;
        if (!hold) {
            if (since != 0) { // (a volatile store on every commit would cost the hot path a fence; a read does not)
                since = 0;
            }
        } else if ((batch || caller) && since == 0 && connection.holdsCommits()) {
            since = Math.max(1, System.nanoTime());
            return true;
        }
        return false;
    }

    /** Writes what is {@link #held} in the connection's send buffer now (holding the send lock). */
    void write() {
        held = false;
        count = 0;
        since = 0;
        if (forCaller) {
            forCaller = false;
        }
        connection.flush();
    }

    /**
     * Whether the message committed next is an asynchronous call that may wait for the next one its caller starts
     * ({@link PendingCall#mayHold}); a send that fails before its commit sets it false again.
     */
    void callMayWait(boolean may) {
        callMayWait = may;
    }

    /**
     * The calling thread is about to answer ({@code true}), or has answered ({@code false}), a call that a poll
     * read and ran: see {@link Sender#answerMayWait}.
     */
    void answerMayWait(boolean on) {
        mayWait = on ? Thread.currentThread() : null;
    }

    /** Whether messages wait in the send buffer. */
    boolean any() {
        return held;
    }

    /**
     * Whether what is held may leave as the last holder of the send lock unlocks, no thread being queued: unless it
     * waits for the end of this thread's batch or for its caller's next call.
     */
    boolean leavesOnUnlock() {
        return held && !(forBatch && mayWait == Thread.currentThread()) && !forCaller;
    }

    /** Whether what is held ends with asynchronous calls waiting for their caller's next one (a hint without the lock). */
    boolean forCaller() {
        return forCaller;
    }

    /** How many asynchronous calls were held so far. */
    int callsHeld() {
        return callsHeld;
    }

    /** When answers or calls began to wait for their batch or caller, or 0. */
    long since() {
        return since;
    }

    /** Nothing held is watched any more: closing wrote it, or it is lost with the connection. */
    void unwatch() {
        since = 0;
    }
}
