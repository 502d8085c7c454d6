package dev.verbatim.rpc.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An answer whose writing fails wherever it fails, even where only an {@link Error} can come from (a stack that
 * runs out in the claim's {@code segment()} or at its commit: docs/rpc.md §4), gives its claim back: a transport
 * hands out one claim at a time, and one left open made every later message on the connection fail ("a claim is
 * already open"). Over a scripted connection whose next claim throws where told: no threads, no timing.
 */
class FailedWritesTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"segment", "commit"})
    void anAnswerWhoseWriteFailsGivesItsClaimBackAndTheNextAnswerGoes(String where) {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = connection.inlineCounter();
        StackOverflowError overflow = new StackOverflowError("the stack ran out in the claim's " + where);
        if (where.equals("segment")) {
            connection.failSegment = overflow;
        } else {
            connection.failCommit = overflow;
        }
        connection.incoming.add(ScriptedConnection.counterCall(10, 1));
        assertSame(overflow, assertThrows(StackOverflowError.class, () -> ScriptedConnection.pollOne(endpoint)));
        assertFalse(connection.claimOpen, "the failed answer's claim was given back");
        assertTrue(connection.sent.isEmpty(), "nothing was sent for it");

        connection.incoming.add(ScriptedConnection.counterCall(11, 41));
        ScriptedConnection.pollOne(endpoint);
        assertEquals(1, connection.sent.size(), "the next call was answered");
        MemorySegment r = connection.sent.getFirst();
        assertEquals(REPLY, kind(r));
        assertEquals(11, callId(r));
        assertEquals(42, r.get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER));
        endpoint.closeWith("test over");
    }
}
