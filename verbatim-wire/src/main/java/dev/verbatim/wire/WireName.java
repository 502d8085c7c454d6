package dev.verbatim.wire;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The wire name of a case of a sealed hierarchy, when it differs from the simple class name. Cases of a
 * sealed hierarchy are told apart by name (two cases may have the same fields), so a record {@code Circle}
 * written by one side is read as the view interface {@code @WireName("Circle") CircleView} by the other.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface WireName {
    String value();
}
