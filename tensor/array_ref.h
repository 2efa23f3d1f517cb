#ifndef EMBER_TENSOR_ARRAY_REF_H_
#define EMBER_TENSOR_ARRAY_REF_H_

// Note [IntArrayRef]: a read-only run of int64_t that does not own its
// elements, spelled as libtorch's c10::IntArrayRef. It converts from what
// absl::Span<const int64_t> does (a braced list, a std::vector, a DimVector,
// a std::array, a C array, a (pointer, size) pair, a Span) and, as
// c10::ArrayRef does, from ONE integer: `ember::randn(3)`, `x.sum(0)`,
// `ember::zeros(n, options)`, `x.view(-1)` are libtorch's spellings of a
// one-element size or dim list. That one-element form points at its
// argument, so it lives as long as the argument does: a call's temporary
// lives until the call's full expression ends, which is what every use as
// a parameter needs; `IntArrayRef r = 3;` dangles, as in libtorch. A
// floating-point or bool argument is refused at compile time (libtorch
// would silently convert it).
//
// It is a class of its own, not an absl::Span, because absl::Span has no
// one-element constructor; it converts to absl::Span<const int64_t>
// (through Span's container constructor) for code that wants one. It
// prints as libtorch does: [2, 3].

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <iterator>
#include <type_traits>
#include <vector>

namespace ember {

class IntArrayRef {
 public:
  using value_type = int64_t;
  using pointer = const int64_t*;
  using const_pointer = const int64_t*;
  using reference = const int64_t&;
  using const_reference = const int64_t&;
  using iterator = const int64_t*;
  using const_iterator = const int64_t*;
  using reverse_iterator = std::reverse_iterator<const int64_t*>;
  using const_reverse_iterator = reverse_iterator;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  static constexpr size_t npos = static_cast<size_t>(-1);

  constexpr IntArrayRef() noexcept : data_(nullptr), size_(0) {}
  constexpr IntArrayRef(const int64_t* data, size_t size) noexcept : data_(data), size_(size) {}
  // One element (Note [IntArrayRef]).
  constexpr IntArrayRef(const int64_t& one) noexcept : data_(&one), size_(1) {}  // NOLINT
  template <typename T,
            std::enable_if_t<std::is_floating_point<T>::value || std::is_same<T, bool>::value,
                             int> = 0>
  IntArrayRef(T) = delete;  // NOLINT: ember::zeros(2.5) is an error, not zeros({2})
  // Delegating keeps GCC's -Winit-list-lifetime quiet: the list's array
  // lives as long as the call's full expression, like any temporary here.
  constexpr IntArrayRef(std::initializer_list<int64_t> list) noexcept  // NOLINT
      : IntArrayRef(list.begin(), list.size()) {}
  template <size_t N>
  constexpr IntArrayRef(const int64_t (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT
  // Anything with data() and size() of int64_t: std::vector, DimVector,
  // std::array, absl::Span.
  template <typename C,
            typename = std::enable_if_t<
                !std::is_same<std::decay_t<C>, IntArrayRef>::value &&
                std::is_convertible<decltype(std::declval<const C&>().data()),
                                    const int64_t*>::value &&
                std::is_integral<decltype(std::declval<const C&>().size())>::value>>
  constexpr IntArrayRef(const C& c) noexcept  // NOLINT
      : data_(c.data()), size_(static_cast<size_t>(c.size())) {}

  constexpr const int64_t* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr size_t length() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr const int64_t* begin() const noexcept { return data_; }
  constexpr const int64_t* end() const noexcept { return data_ + size_; }
  constexpr const int64_t* cbegin() const noexcept { return begin(); }
  constexpr const int64_t* cend() const noexcept { return end(); }
  reverse_iterator rbegin() const noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() const noexcept { return reverse_iterator(begin()); }
  constexpr const int64_t& operator[](size_t i) const noexcept { return data_[i]; }
  // Checked: throws ember::IndexError past the end.
  const int64_t& at(size_t i) const;
  constexpr const int64_t& front() const noexcept { return data_[0]; }
  constexpr const int64_t& back() const noexcept { return data_[size_ - 1]; }

  // absl::Span's slicing (clamped to the end, as Span's subspan).
  constexpr IntArrayRef subspan(size_t pos, size_t len = npos) const noexcept {
    return IntArrayRef(data_ + pos, len < size_ - pos ? len : size_ - pos);
  }
  constexpr IntArrayRef first(size_t n) const noexcept { return IntArrayRef(data_, n); }
  constexpr IntArrayRef last(size_t n) const noexcept {
    return IntArrayRef(data_ + size_ - n, n);
  }
  constexpr void remove_prefix(size_t n) noexcept {
    data_ += n;
    size_ -= n;
  }
  constexpr void remove_suffix(size_t n) noexcept { size_ -= n; }
  // c10::ArrayRef's: elements [n, n + m), and [n, size()).
  constexpr IntArrayRef slice(size_t n, size_t m) const noexcept {
    return IntArrayRef(data_ + n, m);
  }
  constexpr IntArrayRef slice(size_t n) const noexcept { return slice(n, size_ - n); }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  bool equals(IntArrayRef other) const;

 private:
  const int64_t* data_;
  size_t size_;
};

bool operator==(IntArrayRef a, IntArrayRef b);
inline bool operator!=(IntArrayRef a, IntArrayRef b) { return !(a == b); }
inline bool IntArrayRef::equals(IntArrayRef other) const { return *this == other; }

// [2, 3], as libtorch prints sizes().
std::ostream& operator<<(std::ostream& os, IntArrayRef list);

}  // namespace ember

#endif  // EMBER_TENSOR_ARRAY_REF_H_
