// SPDX-License-Identifier: GPL-2.0
// CXXFLAGS: -frtti
// Must be rejected: RTTI refers to the C++ ABI's type_info vtables.
struct Shape {
	virtual ~Shape();
	virtual int area();
};

Shape::~Shape() {}
int Shape::area() { return 0; }
