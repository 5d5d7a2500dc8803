//! `from_row!`: a struct and its `sqlx::FromRow`, read column by column
//! under the fields' names, like `#[derive(sqlx::FromRow)]` without its proc
//! macro (docs/decisions.md, "CI's build, a third time"). A first field
//! marked `#[flatten]` is read as a whole record from the same row.

macro_rules! from_row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            #[flatten]
            $flat_vis:vis $flat:ident : $flat_ty:ty,
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $flat_vis $flat: $flat_ty,
            $( $(#[$field_meta])* $field_vis $field: $ty, )*
        }

        impl<'r, R: ::sqlx::Row> ::sqlx::FromRow<'r, R> for $name
        where
            &'static str: ::sqlx::ColumnIndex<R>,
            $flat_ty: ::sqlx::FromRow<'r, R>,
            $( $ty: ::sqlx::Decode<'r, R::Database> + ::sqlx::Type<R::Database>, )*
        {
            fn from_row(row: &'r R) -> ::std::result::Result<Self, ::sqlx::Error> {
                Ok($name {
                    $flat: <$flat_ty as ::sqlx::FromRow<'r, R>>::from_row(row)?,
                    $( $field: ::sqlx::Row::try_get(row, stringify!($field))?, )*
                })
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$field_meta])* $field_vis $field: $ty, )*
        }

        impl<'r, R: ::sqlx::Row> ::sqlx::FromRow<'r, R> for $name
        where
            &'static str: ::sqlx::ColumnIndex<R>,
            $( $ty: ::sqlx::Decode<'r, R::Database> + ::sqlx::Type<R::Database>, )*
        {
            fn from_row(row: &'r R) -> ::std::result::Result<Self, ::sqlx::Error> {
                Ok($name {
                    $( $field: ::sqlx::Row::try_get(row, stringify!($field))?, )*
                })
            }
        }
    };
}

pub(crate) use from_row;
