package dev.verbatim.wire.access;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Generated view classes live in the wire module and name the types their accessors return, so every type a view
 * reaches must be public (and exported to the wire module, for named modules). This package is not the wire
 * package, so its non-public types are out of the generated code's reach: binding a view that reaches one is
 * refused with a {@link WireSchemaException} naming it, before any accessor runs (not an {@link IllegalAccessError}
 * from generated code on the first read).
 */
class ViewAccessTest {
    enum Side { BUY, SELL }                       // package-private: generated code cannot name it

    public enum PublicSide { BUY, SELL }

    record Order(long id, Side side) {}

    public interface OrderView { long id(); Side side(); }

    record Fill(long id, PublicSide side) {}

    public interface FillView { long id(); PublicSide side(); }

    record Price(long cents) {}

    interface HiddenPriceView { long cents(); }   // package-private view interface, reached as a field

    record Quote(String symbol, Price price) {}

    public interface QuoteView { String symbol(); HiddenPriceView price(); }

    public interface QuoteAsRecordView { String symbol(); Price price(); }   // a non-public record, materialized by a view

    record Book(List<Price> prices) {}

    public interface BookView { List<HiddenPriceView> prices(); }

    private static final WireWriter W = new WireWriter();
    private static final WireReader R = new WireReader();

    private static Message message(Object root) {
        return R.validate(MemorySegment.ofArray(W.toByteArray(root)));
    }

    private static WireSchemaException refused(Message m, Class<?> view) {
        return assertThrows(WireSchemaException.class, () -> m.view(view), "binding " + view.getSimpleName() + " is refused");
    }

    @Test
    void aViewWhoseAccessorReturnsANonPublicEnumIsRefusedWhenBoundNamingTheEnum() {
        Message m = message(new Order(7, Side.SELL));
        WireSchemaException e = refused(m, OrderView.class);
        assertTrue(e.getMessage().contains(Side.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("OrderView.side()"), "says where it is reached: " + e.getMessage());
        assertTrue(e.getMessage().contains("make it public"), "says what to do: " + e.getMessage());
        // the record side of the same message is unaffected: materializing needs no generated reference to the enum
        assertEquals(new Order(7, Side.SELL), m.materialize(Order.class));
    }

    @Test
    void aViewReachingANonPublicViewInterfaceThroughAFieldIsRefusedWhenBound() {
        Message m = message(new Quote("ACME", new Price(1250)));
        WireSchemaException e = refused(m, QuoteView.class);
        assertTrue(e.getMessage().contains(HiddenPriceView.class.getName()), e.getMessage());
    }

    @Test
    void aViewReachingANonPublicViewInterfaceThroughAListIsRefusedWhenBound() {
        Message m = message(new Book(List.of(new Price(1), new Price(2))));
        WireSchemaException e = refused(m, BookView.class);
        assertTrue(e.getMessage().contains(HiddenPriceView.class.getName()), e.getMessage());
    }

    @Test
    void aViewWhoseAccessorReturnsANonPublicRecordIsRefusedWhenBound() {
        Message m = message(new Quote("ACME", new Price(1250)));
        WireSchemaException e = refused(m, QuoteAsRecordView.class);
        assertTrue(e.getMessage().contains(Price.class.getName()), e.getMessage());
    }

    @Test
    void aNonPublicRootViewInterfaceIsRefusedWhenBound() {
        Message m = message(new Price(5));
        WireSchemaException e = refused(m, HiddenPriceView.class);
        assertTrue(e.getMessage().contains(HiddenPriceView.class.getName()), e.getMessage());
    }

    @Test
    void aViewOfPublicTypesInAnotherPackageReadsAsUsual() {
        Message m = message(new Fill(9, PublicSide.BUY));
        FillView v = m.view(FillView.class);
        assertEquals(9, v.id());
        assertEquals(PublicSide.BUY, v.side());
    }
}
