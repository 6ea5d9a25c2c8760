// SPDX-License-Identifier: GPL-2.0
// Must be rejected: anything from namespace std belongs to libstdc++.
namespace std {
[[noreturn]] void terminate() noexcept;
}

extern "C" void guard_std(void);
extern "C" void guard_std(void)
{
	std::terminate();
}
