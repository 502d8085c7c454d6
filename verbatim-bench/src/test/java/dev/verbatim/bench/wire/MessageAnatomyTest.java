package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Payloads;
import dev.verbatim.wire.WireWriter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link MessageAnatomy} reads a message's tables and string padding as the format lays them out. */
class MessageAnatomyTest {
    public record Named(String name, long id) {}

    @Test
    void aRecordWithOneStringHasTwoObjectsOneTypeAndTheStringsPadding() {
        MessageAnatomy a = MessageAnatomy.of(new Named("abc", 7));
        assertEquals(2, a.objects());
        assertEquals(1, a.types());
        assertEquals(1, a.strings());
        assertEquals(8 - (4 + 3), a.stringPadding(), "[u32 length][3 chars] padded to 8");
        assertEquals(8 + 8 + 2 * 8, a.tables());
        assertEquals(a.size(), a.tables() + a.stringPadding() + a.withoutTablesAndPadding());
        assertEquals(16 + 7, a.withoutTablesAndPadding(), "the struct (a long and a reference, 16) and the string's 7 bytes");
    }

    @Test
    void thePayloadsObjectsStringsAndPaddingAreCounted() {
        MessageAnatomy trade = MessageAnatomy.of(Payloads.trade());
        assertEquals(5, trade.objects(), "the trade, two strings, an Instant, a UUID");
        assertEquals(2, trade.strings());
        assertEquals(0, trade.stringPadding(), "two 4-char strings fill 8 bytes each");
        MessageAnatomy batch = MessageAnatomy.of(Payloads.events(100));
        assertEquals(2 + 100 * 3, batch.objects(), "the batch, its list, and per event the event and two strings");
        assertEquals(200, batch.strings());
        assertEquals(100 * (7 + 7), batch.stringPadding(), "'svc-a' (4 + 5 bytes) and 'order 4200 ok' (4 + 13) pad 7 each");
        MessageAnatomy profile = MessageAnatomy.of(Payloads.profile());
        assertEquals(new WireWriter().sizeOf(Payloads.profile()), profile.size());
    }
}
