package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Delivery;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * The peer's answers to this side's calls and lookups ({@code REPLY}, {@code THROWN}, {@code FAIL}, {@code LOOKUP_OK},
 * {@code LOOKUP_FAIL}), the twin of {@link IncomingCalls}: each completes the {@link PendingCall} it answers, after
 * checking it against what it answers. Thread-safe (the {@link CallTable} hands each call out once).
 */
final class IncomingReplies {
    private final Endpoint endpoint;
    private final CallTable calls;
    private final ValueDecoder decoder;

    IncomingReplies(Endpoint endpoint, CallTable calls, ValueDecoder decoder) {
        this.endpoint = endpoint;
        this.calls = calls;
        this.decoder = decoder;
    }

    /**
     * An answer to one of our calls or lookups: completes it. It is checked against what it answers (a
     * lookup takes {@code LOOKUP_OK} or {@code LOOKUP_FAIL}; a call {@code REPLY}, with as many values as
     * its result takes and of its type, {@code THROWN} or {@code FAIL}, with a known reason): anything else
     * fails the call with {@code PROTOCOL} and drops the connection (a peer that answers wrongly cannot be
     * trusted with the calls that follow).
     */
    void onReply(Delivery d, MemorySegment m, int kind) {
        PendingCall p = calls.take(callId(m));
        if (p == null) {
            if (kind == REPLY) {
                endpoint.releaseUnread(m, REPLY_HEADER); // timed out or cancelled: dropped, and what it refers to given back
            }
            return;
        }
        p.answered = true; // before the completion that publishes it: see PendingCall.answered
        RemoteInterface.MethodInfo mi = p.method;
        String malformed = null;
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            if (mi == null ? kind != LOOKUP_OK && kind != LOOKUP_FAIL : kind == LOOKUP_OK || kind == LOOKUP_FAIL) {
                throw new IllegalArgumentException("a message of kind " + kind + " answering "
                        + (mi == null ? "a lookup" : "a call of " + mi.signature));
            }
            switch (kind) {
                case REPLY -> {
                    int count = count(m);
                    if (count != mi.replyValues) {
                        throw new IllegalArgumentException("a reply of " + count + " values to " + mi.signature);
                    }
                    reportAnswer(p);
                    try {
                        p.complete(count == 0 ? null : decoder.read(d, m, REPLY_HEADER, mi.result));
                    } catch (RemoteException over) { // a streamed result beyond this side's limit: the call fails, typed
                        if (over.reason() != Reason.OVERLOADED) {
                            throw over;
                        }
                        p.completeExceptionally(over);
                    }
                }
                case LOOKUP_OK -> p.complete(new int[] {target(m)}); // the export id
                case THROWN -> {
                    Throwable t = ExceptionRebuilder.rebuild(m, mi);
                    if (t instanceof RemoteException r && r.reason() == Reason.PROTOCOL) {
                        throw new IllegalArgumentException(r.getMessage());
                    }
                    reportAnswer(p);
                    p.completeExceptionally(t);
                }
                case FAIL, LOOKUP_FAIL -> {
                    int code = flags(m);
                    Reason reason = Reason.ofCode(code);
                    String message = ValueDecoder.string(m, HEADER);
                    if (reason == null) {
                        throw new IllegalArgumentException("an unknown reason code " + code + " ("
                                + ExceptionRebuilder.clip(message) + ")");
                    }
                    if (kind == LOOKUP_FAIL && reason == Reason.INCOMPATIBLE && p.lookingUp != null && count(m) == 2) {
                        message += "; missing: " + missing(m, checkValue(m, HEADER), p.lookingUp);
                    }
                    p.completeExceptionally(new RemoteException(reason, message));
                }
                default -> { }
            }
        } catch (RuntimeException e) {
            endpoint.closedUnder(e, interrupted); // (a leading caller decoding another's reply: JDK-8306324)
            malformed = e instanceof RemoteException r ? r.getMessage() : String.valueOf(e.getMessage());
            p.completeExceptionally(new RemoteException(Reason.PROTOCOL, "a malformed reply: " + malformed, e));
        }
        p.wake();
        if (malformed != null) {
            endpoint.protocol("a malformed reply: " + malformed);
        }
    }

    /**
     * The peer ran the method of call {@code p} (a well-formed {@code REPLY} or {@code THROWN}): it read the values the
     * node's extension asked to hear of ({@link PendingCall#reportAnswer}), told before the caller wakes.
     */
    private void reportAnswer(PendingCall p) {
        MemorySegment[] values = p.reportAnswer;
        if (values != null) {
            endpoint.answered(values);
        }
    }

    /** The client's own signatures of the method ids the server reported missing. */
    private static String missing(MemorySegment m, long at, RemoteInterface ri) {
        long[] ids = ValueDecoder.longs(m, at);
        StringBuilder b = new StringBuilder();
        for (long id : ids) {
            RemoteInterface.MethodInfo mi = ri.byId(id);
            b.append(b.isEmpty() ? "" : ", ").append(mi == null ? String.format("%016x", id) : mi.signature);
        }
        return b.toString();
    }
}
