//! Enums from the wire keep an `Unknown(String)` arm: the service may grow values this
//! build has not seen, and those must decode, round-trip and display as their text.

/// Declares a wire enum: known variants with their wire text, plus `Unknown(String)`.
/// Its OpenAPI schema is a string listing the known values; its doc comment, when it has
/// only doc attributes, becomes the schema's description.
#[macro_export]
macro_rules! wire_enum {
    (
        @emit [$($doc:literal)*]
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this build does not know; kept verbatim.
            Unknown(String),
        }

        impl $name {
            /// Every known value, in the order the spec lists them.
            pub const KNOWN: &'static [$name] = &[ $( $name::$variant ),+ ];

            /// The value as it travels on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Unknown(text) => text.as_str(),
                }
            }

            /// Whether this value is one this build knows.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $( $text => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Ok($name::from(text))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(deserializer)?;
                Ok($name::from(text.as_ref()))
            }
        }

        impl $crate::api::wire_enum::WireEnum for $name {
            fn known() -> &'static [Self] {
                Self::KNOWN
            }
            fn text(&self) -> &str {
                self.as_str()
            }
        }

        impl ::utoipa::PartialSchema for $name {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                $crate::api::wire_enum::string_enum_schema(&[$($doc),*], &[$($text),+])
            }
        }

        impl ::utoipa::ToSchema for $name {
            fn name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }
        }
    };
    // Only doc comments: they are kept for the schema's description.
    (
        $(#[doc = $doc:literal])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $crate::wire_enum! {
            @emit [$($doc)*]
            $(#[doc = $doc])*
            $vis enum $name { $( $(#[$vmeta])* $variant = $text ),+ }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $crate::wire_enum! {
            @emit []
            $(#[$meta])*
            $vis enum $name { $( $(#[$vmeta])* $variant = $text ),+ }
        }
    };
}

/// What every wire enum offers generically: its known values, and its text on the wire.
pub trait WireEnum: Sized + PartialEq + for<'a> From<&'a str> + 'static {
    fn known() -> &'static [Self];
    fn text(&self) -> &str;

    fn is_known_value(&self) -> bool {
        Self::known().contains(self)
    }

    /// The known values as a list for messages: `OPEN, ACKNOWLEDGED, RESOLVED`.
    fn known_list() -> String {
        Self::known().iter().map(Self::text).collect::<Vec<_>>().join(", ")
    }
}

/// What every wire enum's schema says about values outside its `enum` list.
pub const OPEN_ENUM_NOTE: &str =
    "The values listed are the known ones; the service may send others, which clients keep as text.";

/// A wire enum's schema: a string whose `enum` lists the known values, described by its doc
/// comment and a note that other values may appear.
#[doc(hidden)]
pub fn string_enum_schema(doc: &[&str], known: &[&str]) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let summary = doc.iter().map(|line| line.trim()).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ");
    let description =
        if summary.is_empty() { OPEN_ENUM_NOTE.to_owned() } else { format!("{summary} {OPEN_ENUM_NOTE}") };
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(known.iter().copied()))
        .description(Some(description))
        .into()
}

#[cfg(test)]
#[allow(dead_code, reason = "the test enums exist for their generated code, not every variant is used")]
mod tests {
    wire_enum! {
        /// A colour
        /// of the rainbow.
        enum Colour { Red = "RED", Green = "GREEN" }
    }

    #[test]
    fn known_values_decode_to_variants() {
        let c: Colour = serde_json::from_str("\"GREEN\"").unwrap();
        assert_eq!(c, Colour::Green);
        assert_eq!(serde_json::to_string(&Colour::Red).unwrap(), "\"RED\"");
    }

    #[test]
    fn unknown_values_round_trip_as_text() {
        let c: Colour = serde_json::from_str("\"ULTRAVIOLET\"").unwrap();
        assert_eq!(c, Colour::Unknown("ULTRAVIOLET".into()));
        assert!(!c.is_known());
        assert_eq!(c.to_string(), "ULTRAVIOLET");
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"ULTRAVIOLET\"");
    }

    #[test]
    fn non_string_is_an_error() {
        assert!(serde_json::from_str::<Colour>("3").is_err());
    }

    wire_enum! {
        /// A shade of grey.
        #[derive(Default)]
        enum Grey { #[default] Light = "LIGHT", Dark = "DARK" }
    }

    #[test]
    fn schema_is_a_string_listing_the_known_values() {
        use utoipa::{PartialSchema, ToSchema};
        let schema = serde_json::to_value(Colour::schema()).unwrap();
        assert_eq!(schema["type"], "string");
        assert_eq!(schema["enum"], serde_json::json!(["RED", "GREEN"]));
        let description = format!("A colour of the rainbow. {}", super::OPEN_ENUM_NOTE);
        assert_eq!(schema["description"], description);
        assert_eq!(Colour::name(), "Colour");
    }

    #[test]
    fn other_attributes_still_apply_and_the_description_keeps_the_note() {
        use utoipa::PartialSchema;
        let schema = serde_json::to_value(Grey::schema()).unwrap();
        assert_eq!(schema["enum"], serde_json::json!(["LIGHT", "DARK"]));
        assert_eq!(schema["description"], super::OPEN_ENUM_NOTE);
        assert_eq!(Grey::default(), Grey::Light);
    }
}
