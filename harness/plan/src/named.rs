//! `named_enum!`: fieldless enums whose variants have fixed spellings.
//!
//! The step vocabulary (query pnames, `api` calls, flag kinds, ...) is written as strings in
//! case files, plans on the wire, and reports. Each such enum gets its spelling table once, here
//! generated: `ALL`, `name()`, `from_name()`, `Display`, and serde as the name, so a plan or a
//! journal reads exactly as the strings did.

/// Declares a fieldless enum with one fixed name per variant (`Variant = "name",`).
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $name:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $enum {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $enum {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)*];

            /// The name cases, plans and reports spell it with.
            pub fn name(self) -> &'static str {
                match self {
                    $( $enum::$variant => $name, )*
                }
            }

            /// The variant spelled `name`, if any.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }

            /// Every name, in declaration order (for "allowed values" hints).
            pub fn names() -> impl Iterator<Item = &'static str> {
                Self::ALL.iter().map(|v| v.name())
            }
        }

        impl std::fmt::Display for $enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                $enum::from_name(&text).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        concat!("unknown ", stringify!($enum), " `{}`"),
                        text
                    ))
                })
            }
        }
    };
}

pub(crate) use named_enum;

/// Panics unless every name is different (tests of each named enum call it).
#[cfg(test)]
pub(crate) fn assert_unique_names(names: impl Iterator<Item = &'static str>) {
    let mut all: Vec<&str> = names.collect();
    all.sort_unstable();
    let before = all.len();
    all.dedup();
    assert_eq!(all.len(), before, "a name is used twice");
}

#[cfg(test)]
mod tests {
    named_enum! {
        /// A test enum.
        pub enum Colour {
            Red = "red",
            DarkBlue = "dark-blue",
        }
    }

    #[test]
    fn names_round_trip_through_serde() {
        for c in Colour::ALL {
            assert_eq!(Colour::from_name(c.name()), Some(*c));
            let json = serde_json::to_string(c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<Colour>(&json).unwrap(), *c);
        }
        assert_eq!(Colour::names().collect::<Vec<_>>(), ["red", "dark-blue"]);
        super::assert_unique_names(Colour::names());
        assert_eq!(Colour::from_name("green"), None);
        let err = serde_json::from_str::<Colour>("\"green\"").unwrap_err();
        assert!(err.to_string().contains("unknown Colour `green`"), "{err}");
    }
}
