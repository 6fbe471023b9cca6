//! Enums from the wire keep an `Unknown(String)` arm: the service may grow values this
//! build has not seen, and those must decode, round-trip and display as their text.

/// Declares a wire enum: known variants with their wire text, plus `Unknown(String)`.
#[macro_export]
macro_rules! wire_enum {
    (
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
    };
}

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    wire_enum! {
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
}
