package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * How the peer's calls are answered (docs/rpc.md §1 and §3), once {@link IncomingCalls} ran them: a
 * {@code REPLY} with the result, a {@code THROWN} with what the implementation threw, or a {@code FAIL}
 * with a reason and a message. Answers go by {@link Sender#answer}: they never wait.
 *
 * <p>What a failure discloses (issue 16 §2): an exception the method declares (or a subclass of one)
 * goes with its class names and message, always: the caller's contract needs it. Anything else, and the
 * text of an internal error (a result that cannot be sent), goes only when the export asks for
 * {@linkplain dev.verbatim.rpc.ExportOptions#errorDetails details}; by default the caller learns that
 * such a failure happened and nothing of the implementation ({@link ExceptionRebuilder#describe}).
 *
 * <p>Thread-safe (stateless over the endpoint's {@link Sender}).
 */
final class CallAnswers {
    private final Sender sender;

    CallAnswers(Sender sender) {
        this.sender = sender;
    }

    /**
     * Answers call {@code callId} of {@code mi} with its {@code result}; a result that cannot be sent is
     * answered {@code FAIL} instead ({@code OVERLOADED}: the peer holds as many of our objects as it may;
     * {@code ARGUMENT}: it cannot be encoded, the why disclosed only with {@code details}).
     */
    void result(long callId, RemoteInterface.MethodInfo mi, Object result, boolean details) {
        CallEncoder.Planned v;
        try {
            if (mi.result.tag() == ValueKind.Tag.VOID) {
                sender.answer(head(REPLY, 0, 0, 0), callId, 0, CallEncoder.NOTHING, null);
                return;
            }
            if (mi.result.primitive()) {
                sender.answer(head(REPLY, 0, 1, 0), callId, VALUE_HEADER + 8, CallEncoder.PRIMITIVE, result);
                return;
            }
            MemorySegment big = CallEncoder.streamable(mi.result, result, sender.streams().maxInlineResult());
            if (big != null) { // too large for one message: its pieces go first, waiting for room (docs/rpc.md §7)
                sender.streams().stream(true, callId, 0, big, null);
                v = CallEncoder.streamed(0);
            } else {
                v = sender.planResult(mi.result, result, mi);
            }
        } catch (RuntimeException e) {
            unsendable(callId, mi, e, details);
            return;
        }
        try {
            sender.answer(head(REPLY, 0, 1, 0), callId, span(v.payload()), CallEncoder.ONE_PLANNED, v);
        } catch (RuntimeException e) {
            sender.unsent(v); // the peer never learnt of the reference planning counted
            unsendable(callId, mi, e, details);
        }
    }

    private void unsendable(long callId, RemoteInterface.MethodInfo mi, RuntimeException e, boolean details) {
        Reason reason = e instanceof RemoteException r ? r.reason() : Reason.ARGUMENT;
        String why = reason == Reason.OVERLOADED || details ? ": " + (e instanceof RemoteException ? e.getMessage() : e)
                : " (the export keeps the details: ExportOptions.withErrorDetails)";
        fail(FAIL, callId, reason, "the result of " + mi.signature + " cannot be sent" + why);
    }

    /** Answers call {@code callId} of {@code mi} with what its implementation threw (as much as it discloses). */
    void thrown(long callId, Throwable t, RemoteInterface.MethodInfo mi, boolean details) {
        ExceptionRebuilder.Described d = ExceptionRebuilder.describe(t, mi, details);
        try {
            sender.answer(head(THROWN, 0, d.count(), 0), callId, d.body(), CallEncoder.THROWN_BODY, d);
        } catch (RuntimeException ignored) {
            // the connection is gone: the caller learns that instead
        }
    }

    /** The words of every {@code FAIL TOO_DEEP}: no node, thread, address or depth of the chain is disclosed. */
    static final String TOO_DEEP = "the call chain nested deeper than a thread in it may wait (docs/rpc.md §4:"
            + " -Dverbatim.rpc.maxNesting, -Xss)";

    /**
     * Answers {@code FAIL TOO_DEEP}: a call further down the chain this call started was too deep for its thread, and
     * the method let it escape (docs/rpc.md §4).
     */
    void tooDeep(long callId) {
        try {
            fail(FAIL, callId, Reason.TOO_DEEP, TOO_DEEP);
        } catch (RuntimeException ignored) {
            // the connection is gone: the caller learns that instead
        }
    }

    /** Answers {@code FAIL} or {@code LOOKUP_FAIL} with a reason and a message. */
    void fail(int kind, long callId, Reason reason, String message) {
        byte[] b = message.getBytes(StandardCharsets.UTF_8);
        MemorySegment bytes = MemorySegment.ofArray(b);
        sender.answer(head(kind, reason.code(), 1, 0), callId, span(b.length), CallEncoder.BODY,
                (CallEncoder.Body) (s, at) -> CallEncoder.putBytes(s, at, bytes));
    }
}
